import { describe, expect, it } from 'vitest';
import { BoundedLru } from '../../src/platform/bounded-lru.js';

// What the prepared documents (D-981) and the learned lexicons (D-1223) are kept in.
describe('values kept by key within bounds', () => {
  it('keeps what fits, the least recently used out first, by count and by size', () => {
    const kept = new BoundedLru<string>({ entries: 2, size: 10 });
    const set = (key: string, value: string) => kept.set(key, value, value.length);
    set('a', 'aaaa');
    set('b', 'bbbb');
    expect(kept.get('a')).toBe('aaaa');
    // Over two entries: b, used longest ago, goes.
    set('c', 'cc');
    expect([kept.get('a'), kept.get('b'), kept.get('c')]).toEqual(['aaaa', undefined, 'cc']);
    // Over ten characters: a goes, c stays; one larger than the bound is not kept at all.
    set('d', 'dddddd');
    expect([kept.get('a'), kept.get('c'), kept.get('d')]).toEqual([undefined, 'cc', 'dddddd']);
    set('e', 'e'.repeat(11));
    expect([kept.get('e'), kept.get('d')]).toEqual([undefined, 'dddddd']);
    // A key set again is counted once, at its new size.
    set('d', 'd');
    set('f', 'fffffffff');
    expect([kept.get('d'), kept.get('f'), kept.count]).toEqual(['d', 'fffffffff', 2]);
  });
});
