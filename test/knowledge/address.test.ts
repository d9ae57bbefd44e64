import { describe, expect, it } from 'vitest';
import { blockedClass, hostKind } from '../../src/knowledge/fetch/address.js';
import { judgeUrl } from '../../src/knowledge/fetch/url-policy.js';

describe('address classes', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456::1', 'unique_local'],
    ['100.64.0.1', 'carrier_grade_nat'],
    ['100.127.255.255', 'carrier_grade_nat'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['2001:db8::1', 'reserved'],
    ['64:ff9b::7f00:1', 'reserved'],
    ['2002:7f00:1::', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:a9fe:a9fe', 'link_local'],
    ['::127.0.0.1', 'loopback'],
    ['not an address', 'reserved'],
  ])('%s is %s', (address, expected) => {
    expect(blockedClass(address)).toBe(expected);
  });

  it.each(['93.184.215.14', '8.8.8.8', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('%s is public', (address) => {
    expect(blockedClass(address)).toBeUndefined();
  });
});

describe('URL rules judged at once', () => {
  it.each([
    ['http://2130706433/', 'loopback'],
    ['http://0x7f.1/', 'loopback'],
    ['http://0177.0.0.1/', 'loopback'],
    ['http://127.1/', 'loopback'],
    ['http://[::ffff:127.0.0.1]/', 'loopback'],
    ['http://[::1]:8080/', 'loopback'],
    ['http://localhost/', 'loopback'],
    ['http://LOCALHOST./x', 'loopback'],
    ['http://api.localhost/', 'loopback'],
    ['https://169.254.169.254/latest/meta-data', 'link_local'],
    ['http://0/', 'unspecified'],
    ['http://10.0.0.1:443/', 'private'],
  ])('%s is refused as %s', (url, blocked) => {
    expect(judgeUrl(new URL(url))).toEqual({ ok: false, reason: 'address', blocked });
  });

  it.each([
    ['ftp://example.com/file', 'scheme'],
    ['file:///etc/passwd', 'scheme'],
    ['javascript:alert(1)', 'scheme'],
    ['http://example.com:22/', 'port'],
    ['https://example.com:8081/', 'port'],
    ['http://user:secret@example.com/', 'credentials'],
  ])('%s is refused for its %s', (url, detail) => {
    expect(judgeUrl(new URL(url))).toEqual({ ok: false, reason: 'shape', detail });
  });

  it.each([
    'http://example.com/',
    'https://example.com:443/a?b=c',
    'http://example.com:80/',
    'http://example.com:8080/',
    'https://example.com:8443/',
    'http://93.184.215.14/',
    'http://[2606:4700:4700::1111]/',
  ])('%s is allowed', (url) => {
    expect(judgeUrl(new URL(url))).toEqual({ ok: true });
  });

  it('tells literal addresses, localhost and names apart', () => {
    expect(hostKind(new URL('http://[fe80::1]/'))).toEqual({ kind: 'address', address: 'fe80::1' });
    expect(hostKind(new URL('http://0x7f000001/'))).toEqual({ kind: 'address', address: '127.0.0.1' });
    expect(hostKind(new URL('http://Example.COM./'))).toEqual({ kind: 'name', name: 'example.com' });
  });
});
