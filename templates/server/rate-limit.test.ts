import { describe, expect, it } from 'vitest';
import { createMemoryRateLimiter, rateLimitHeaders, UNLIMITED } from './rate-limit.js';

describe('createMemoryRateLimiter', () => {
  it('counts per token in a fixed minute and refuses without counting', () => {
    let now = 120_000 + 20_000;
    const limiter = createMemoryRateLimiter({ now: () => now });
    const hit = () => limiter.consume({ tokenKey: 't', tokenLimit: 2, ip: '10.0.0.1' });
    expect(hit()).toMatchObject({ allowed: true, limit: 2, remaining: 1, scope: 'token' });
    expect(hit()).toMatchObject({ allowed: true, remaining: 0 });
    expect(hit()).toEqual({ allowed: false, limit: 2, remaining: 0, reset: 180, retryAfter: 40, scope: 'token' });
    now = 180_000;
    expect(hit()).toMatchObject({ allowed: true, remaining: 1, reset: 240 });
  });

  it('binds the IP ceiling across tokens, IPv4-mapped addresses included', () => {
    const limiter = createMemoryRateLimiter({ ipPerMinute: 2, now: () => 0 });
    expect(limiter.consume({ tokenKey: 'a', tokenLimit: 100, ip: '10.0.0.1' })).toMatchObject({ allowed: true, remaining: 1, scope: 'ip' });
    expect(limiter.consume({ tokenKey: 'b', tokenLimit: 100, ip: '::ffff:10.0.0.1' })).toMatchObject({ allowed: true, remaining: 0, scope: 'ip' });
    expect(limiter.consume({ tokenKey: 'c', tokenLimit: 100, ip: '10.0.0.1' })).toMatchObject({ allowed: false, limit: 2, scope: 'ip', retryAfter: 60 });
    expect(limiter.consume({ tokenKey: 'c', tokenLimit: 100, ip: '10.0.0.2' })).toMatchObject({ allowed: true });
  });

  it('gives the D5 headers, Reset and Retry-After only on refusal', () => {
    expect(rateLimitHeaders({ allowed: true, limit: 60, remaining: 59, reset: 100, retryAfter: null, scope: 'token' })).toEqual({ 'x-ratelimit-limit': '60', 'x-ratelimit-remaining': '59' });
    expect(rateLimitHeaders({ allowed: false, limit: 60, remaining: 0, reset: 100, retryAfter: 7, scope: 'token' })).toEqual({
      'x-ratelimit-limit': '60',
      'x-ratelimit-remaining': '0',
      'x-ratelimit-reset': '100',
      'retry-after': '7',
    });
  });

  it('sends no rate-limit header when neither the token nor the IP has a ceiling', () => {
    const decision = createMemoryRateLimiter({ ipPerMinute: 0, now: () => 0 }).consume({ tokenKey: 't', tokenLimit: 0, ip: '10.0.0.1' });
    expect(decision).toMatchObject({ allowed: true, limit: UNLIMITED });
    expect(rateLimitHeaders(decision)).toEqual({});
    // One ceiling is enough for the headers: the IP's here.
    const ipOnly = createMemoryRateLimiter({ ipPerMinute: 5, now: () => 0 }).consume({ tokenKey: 't', tokenLimit: 0, ip: '10.0.0.1' });
    expect(rateLimitHeaders(ipOnly)).toEqual({ 'x-ratelimit-limit': '5', 'x-ratelimit-remaining': '4' });
  });
});
