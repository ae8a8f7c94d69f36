// What probe tells of a cache in front (src/pure/probe/cache.ts): the layer by its headers, a HIT, the copy against
// the export as published here, and the rule to change.
import { describe, expect, it } from 'vitest';
import {
  cacheAdvice,
  cacheFactsOf,
  cacheLayerOf,
  judgeCopy,
  servedFromCache,
} from '../../../../src/pure/probe/cache.js';

describe('the cache in front', () => {
  it('is named by its headers', () => {
    expect(cacheLayerOf(cacheFactsOf({ 'cf-cache-status': 'DYNAMIC' }))).toBe('cloudflare');
    expect(cacheLayerOf(cacheFactsOf({ via: '1.1 varnish (Varnish/7.1)', age: '12' }))).toBe('varnish');
    expect(cacheLayerOf(cacheFactsOf({ 'x-cache': 'HIT from proxy.example' }))).toBe('proxy');
    expect(cacheLayerOf(cacheFactsOf({ 'x-cache': 'MISS from squid.example' }))).toBe('squid');
    expect(cacheFactsOf({ 'content-type': 'application/xml' })).toBeUndefined();
  });

  it('a HIT, a STALE or an Age is a copy from a cache; DYNAMIC, MISS and BYPASS are not', () => {
    expect(servedFromCache(cacheFactsOf({ 'cf-cache-status': 'HIT' }))).toBe(true);
    expect(servedFromCache(cacheFactsOf({ 'x-cache-status': 'STALE' }))).toBe(true);
    expect(servedFromCache(cacheFactsOf({ age: '3' }))).toBe(true);
    expect(servedFromCache(cacheFactsOf({ 'cf-cache-status': 'DYNAMIC' }))).toBe(false);
    expect(servedFromCache(cacheFactsOf({ 'x-cache': 'MISS', age: '0' }))).toBe(false);
  });

  it('the advice names the rule of the cache that answered', () => {
    expect(cacheAdvice('cloudflare', 30)).toMatch(/Cache Everything.*Edge TTL.*max-age=30/);
    expect(cacheAdvice('proxy', 30)).toContain('proxy_cache_valid 200 30s;');
    expect(cacheAdvice('varnish', undefined)).toContain('beresp.ttl');
  });
});

describe('the copy against the export as published here', () => {
  const local = {
    file: 'parserfile.xml',
    digest: 'aaaa',
    publishedAtMs: 1_000_000,
    periodMs: 30_000,
    nowMs: 1_010_000,
  };

  it('the same bytes are current; other bytes within a period are behind, after it stale', () => {
    expect(judgeCopy('aaaa', undefined, local).copy).toBe('current');
    expect(judgeCopy('bbbb', undefined, local).copy).toBe('behind');
    expect(judgeCopy('bbbb', undefined, { ...local, nowMs: 1_100_000 })).toEqual({
      copy: 'stale',
      detail:
        'not the build of parserfile.xml published 100 s ago: older than one build (the schedule runs every 30 s)',
    });
  });

  it('a copy modified after the local file is newer: this folder is not where the exports are published from', () => {
    expect(judgeCopy('bbbb', new Date(1_100_000).toUTCString(), { ...local, nowMs: 2_000_000 }).copy).toBe('newer');
  });
});
