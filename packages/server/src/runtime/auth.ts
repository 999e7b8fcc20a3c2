// Copied by gen-card-api from templates/server/auth.ts. Do not edit: change the template and run the generator.
/**
 * Bearer-token access checks (contract section 5), in the order of D16: a resolved token whose workspace is
 * inactive gets 403 `api.workspace_inactive` whatever else holds; a missing, unknown or unusable token 401;
 * an IP outside the allowlist 403 `api.ip_not_allowed`; a missing ability 403 `api.insufficient_ability`.
 * The rate limit, the last check, lives in rate-limit.ts. Pure functions: the plugin wires them.
 */
import { BlockList, isIP } from 'node:net';
import type { AuthResult } from './types.js';

/** A refused request: status, D2 code and a message safe to show the caller. */
export interface AccessDenial {
  status: 401 | 403;
  code: 'api.unauthenticated' | 'api.workspace_inactive' | 'api.ip_not_allowed' | 'api.insufficient_ability';
  message: string;
}

/** The token of an `Authorization: Bearer <token>` header; null when missing or another scheme. */
export function bearerToken(header: string | string[] | undefined): string | null {
  if (typeof header !== 'string') return null;
  // RFC 7235: the scheme is case-insensitive; one or more spaces separate it from the credentials.
  const match = /^Bearer +([\x21-\x7E]+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** `::ffff:10.0.0.1`, what a dual-stack socket reports for an IPv4 client, is checked as `10.0.0.1`. */
export function normaliseIp(ip: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(ip);
  return mapped?.[1] ?? ip;
}

/** One allowlist entry: `10.0.0.0/8`, `2001:db8::/32`, or a bare address meaning one host. Null if malformed. */
export function parseCidr(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | null {
  const [rawAddress = '', prefixText, ...rest] = entry.trim().split('/');
  if (rest.length > 0) return null;
  const address = normaliseIp(rawAddress);
  const version = isIP(address);
  if (version === 0) return null;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  return prefix > max ? null : { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/**
 * Whether `ip` falls in the allowlist. An empty list allows every IP; malformed entries match nothing (so a
 * typo in the list fails closed rather than opening the token to everyone).
 */
export function ipAllowed(allowlist: readonly string[], ip: string): boolean {
  if (allowlist.length === 0) return true;
  const address = normaliseIp(ip);
  const version = isIP(address);
  if (version === 0) return false;
  const list = new BlockList();
  for (const entry of allowlist) {
    const cidr = parseCidr(entry);
    if (cidr) list.addSubnet(cidr.address, cidr.prefix, cidr.family);
  }
  return list.check(address, version === 4 ? 'ipv4' : 'ipv6');
}

/** Whether the granted abilities satisfy one of the alternatives (each a list needed in full). */
export function hasAbility(granted: readonly string[], alternatives: ReadonlyArray<ReadonlyArray<string>>): boolean {
  if (alternatives.length === 0) return true;
  return alternatives.some((all) => all.every((ability) => granted.includes(ability)));
}

/** Runs the D16 checks for a resolved token (null = unknown or missing) on a route; null means allowed. */
export function checkAccess(auth: AuthResult | null, abilities: ReadonlyArray<ReadonlyArray<string>>, ip: string): AccessDenial | null {
  if (auth === null) return { status: 401, code: 'api.unauthenticated', message: 'The bearer token is missing or invalid.' };
  if (auth.workspace.status !== 'active') {
    return { status: 403, code: 'api.workspace_inactive', message: `The workspace is ${String(auth.workspace.status)}; its API access is suspended.` };
  }
  if (auth.tokenStatus !== undefined && auth.tokenStatus !== 'active') {
    return { status: 401, code: 'api.unauthenticated', message: `The bearer token is ${auth.tokenStatus}.` };
  }
  if (!ipAllowed(auth.ipAllowlist, ip)) {
    return { status: 403, code: 'api.ip_not_allowed', message: `The IP ${normaliseIp(ip)} is not in the token allowlist.` };
  }
  if (!hasAbility(auth.abilities, abilities)) {
    const needed = abilities.map((all) => all.join(' and ')).join(' or ');
    return { status: 403, code: 'api.insufficient_ability', message: `This route requires the ${needed} ability.` };
  }
  return null;
}
