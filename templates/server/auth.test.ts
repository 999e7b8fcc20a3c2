import { describe, expect, it } from 'vitest';
import { bearerToken, checkAccess, hasAbility, ipAllowed, parseCidr } from './auth.js';
import type { AuthResult } from './types.js';

describe('bearerToken', () => {
  it.each([
    ['Bearer ab_sk_123', 'ab_sk_123'],
    ['bearer   ab_sk_123 ', 'ab_sk_123'],
    ['Basic abc', null],
    ['Bearer', null],
    ['Bearer two words', null],
    [undefined, null],
    [['Bearer a', 'Bearer b'], null],
  ] as const)('%j → %j', (header, want) => {
    expect(bearerToken(header as string | string[] | undefined)).toBe(want);
  });
});

describe('ipAllowed', () => {
  it.each([
    ['empty list allows all', [], '203.0.113.9', true],
    ['IPv4 inside', ['10.0.0.0/8'], '10.1.2.3', true],
    ['IPv4 outside', ['10.0.0.0/8'], '11.0.0.1', false],
    ['IPv4-mapped IPv6 is checked as IPv4', ['10.0.0.0/8'], '::ffff:10.9.9.9', true],
    ['bare address is one host', ['192.0.2.7'], '192.0.2.7', true],
    ['bare address excludes its neighbour', ['192.0.2.7'], '192.0.2.8', false],
    ['IPv6 inside', ['2001:db8::/32'], '2001:db8:1::5', true],
    ['IPv6 outside', ['2001:db8::/32'], '2001:db9::1', false],
    ['IPv6 loopback host', ['::1/128'], '::1', true],
    ['IPv4 rule does not admit IPv6', ['0.0.0.0/0'], '::1', false],
    ['malformed entries match nothing (fail closed)', ['10.0.0.0/33', 'nonsense'], '10.0.0.1', false],
    ['a malformed caller IP is refused', ['0.0.0.0/0'], 'unknown', false],
  ] as const)('%s', (_name, list, ip, want) => {
    expect(ipAllowed(list, ip)).toBe(want);
  });

  it('parses CIDR entries', () => {
    expect(parseCidr(' 10.0.0.0/8 ')).toEqual({ address: '10.0.0.0', prefix: 8, family: 'ipv4' });
    expect(parseCidr('2001:db8::')).toEqual({ address: '2001:db8::', prefix: 128, family: 'ipv6' });
    expect(parseCidr('10.0.0.0/8/1')).toBeNull();
  });
});

describe('hasAbility', () => {
  it.each([
    ['no requirement', [], [[]], true],
    ['one of two alternatives', ['cards.write'], [['cards.read'], ['cards.write']], true],
    ['all of one list', ['a', 'b'], [['a', 'b']], true],
    ['only part of a list', ['a'], [['a', 'b']], false],
    ['none', ['wallet.read'], [['cards.read']], false],
  ] as const)('%s', (_name, granted, alternatives, want) => {
    expect(hasAbility(granted, alternatives as unknown as string[][])).toBe(want);
  });
});

describe('checkAccess (D16 order)', () => {
  const base: AuthResult = { workspace: { id: 1, status: 'active' }, abilities: ['cards.read'], ipAllowlist: ['10.0.0.0/8'] };
  it.each([
    ['unknown token', null, '10.0.0.1', 'api.unauthenticated'],
    ['inactive workspace overrides a revoked token, the IP and the ability', { ...base, workspace: { id: 1, status: 'frozen' }, tokenStatus: 'revoked', abilities: [] }, '1.1.1.1', 'api.workspace_inactive'],
    ['revoked token before the IP', { ...base, tokenStatus: 'revoked' }, '1.1.1.1', 'api.unauthenticated'],
    ['IP before the ability', { ...base, abilities: [] }, '1.1.1.1', 'api.ip_not_allowed'],
    ['ability last', { ...base, abilities: [] }, '10.0.0.1', 'api.insufficient_ability'],
    ['allowed', base, '10.0.0.1', null],
  ] as const)('%s', (_name, auth, ip, code) => {
    expect(checkAccess(auth as AuthResult | null, [['cards.read']], ip)?.code ?? null).toBe(code);
  });

  it('names the ability a route needs', () => {
    expect(checkAccess({ ...base, abilities: [] }, [['cards.read'], ['cards.write']], '10.0.0.1')?.message).toBe('This route requires the cards.read or cards.write ability.');
  });
});
