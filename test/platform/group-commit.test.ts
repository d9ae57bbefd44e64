import { describe, expect, it } from 'vitest';
import { GroupCommit } from '../../src/platform/group-commit.js';

describe('group commit', () => {
  it('writes what arrives during a write together in the next one, and settles each add once its item is written', async () => {
    const writes: number[][] = [];
    let release: () => void = () => {};
    const group = new GroupCommit<number>(async (items) => {
      writes.push(items);
      if (writes.length === 1) await new Promise<void>((r) => (release = r));
    }, 3);
    const first = group.add(1);
    await new Promise((r) => setImmediate(r));
    const later = [2, 3, 4, 5].map((n) => group.add(n));
    let settled = false;
    void Promise.all(later).then(() => (settled = true));
    await new Promise((r) => setImmediate(r));
    expect(settled).toBe(false);
    release();
    await first;
    await Promise.all(later);
    expect(writes).toEqual([[1], [2, 3, 4], [5]]);
  });

  it('fails only the item that cannot be written: the others of its group are written alone', async () => {
    const written: number[] = [];
    const group = new GroupCommit<number>(async (items) => {
      if (items.includes(2)) throw new Error('bad item');
      written.push(...items);
    }, 10);
    const results = await Promise.allSettled([1, 2, 3].map((n) => group.add(n)));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(written.sort()).toEqual([1, 3]);
  });
});
