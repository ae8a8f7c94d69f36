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
    expect(judgeCopy({ digest: 'aaaa' }, local).copy).toBe('current');
    expect(judgeCopy({ digest: 'bbbb' }, local).copy).toBe('behind');
    expect(judgeCopy({ digest: 'bbbb' }, { ...local, nowMs: 1_100_000 })).toEqual({
      copy: 'stale',
      detail:
        'not the build of parserfile.xml published 100 s ago: older than one build (the schedule runs every 30 s)',
    });
  });

  it('a copy modified after the local file is newer: this folder is not where the exports are published from', () => {
    expect(
      judgeCopy({ digest: 'bbbb', lastModified: new Date(1_100_000).toUTCString() }, { ...local, nowMs: 2_000_000 })
        .copy,
    ).toBe('newer');
  });

  // Behind an nginx `proxy_cache_valid any 10m` on a 10 s schedule whose rates move at every build: the local file is
  // always seconds old, so only the copy's own version (its bytes, ETag or Last-Modified) dates it.
  describe('dated by the builds .ratefile/outside.json keeps', () => {
    const builtAt = (i: number) => 1_700_000_000_000 + i * 10_000;
    // 31 builds 10 s apart, the last one the local file, published 4 s ago.
    const versions = Array.from({ length: 31 }, (_, i) => ({
      sha256: `${String(i).padStart(4, '0')}${'f'.repeat(60)}`,
      etag: `"etag-${i}"`,
      at: new Date(builtAt(i)).toISOString(),
    }));
    const moving = {
      file: 'parserfile.xml',
      digest: versions[30]!.sha256.slice(0, 16),
      publishedAtMs: builtAt(30) + 200,
      periodMs: 10_000,
      nowMs: builtAt(30) + 4_000,
      versions,
    };
    const copyOf = (i: number) => ({
      digest: versions[i]!.sha256.slice(0, 16),
      etag: versions[i]!.etag,
      lastModified: new Date(builtAt(i) + 200).toUTCString(),
    });

    it('a copy 3 minutes old is stale, by its bytes, its ETag or its Last-Modified', () => {
      expect(judgeCopy(copyOf(12), moving)).toEqual({
        copy: 'stale',
        detail: `18 builds of parserfile.xml behind, replaced by the build of ${versions[13]!.at} (174 s ago): older than one build (the schedule runs every 10 s)`,
      });
      // A proxy that changed the bytes (a CDN's minifier) but kept the ETag; one that sent neither body nor ETag we know.
      expect(judgeCopy({ ...copyOf(12), digest: 'cdcdcdcdcdcdcdcd' }, moving).copy).toBe('stale');
      expect(judgeCopy({ digest: 'cdcdcdcdcdcdcdcd', lastModified: copyOf(12).lastModified }, moving)).toMatchObject({
        copy: 'stale',
        detail: expect.stringContaining(`replaced by the build of ${versions[13]!.at} (174 s ago)`),
      });
    });

    it('the build just before the latest is one build behind, within one period', () => {
      expect(judgeCopy(copyOf(29), moving)).toEqual({
        copy: 'behind',
        detail: `a build of parserfile.xml behind, replaced by the build of ${versions[30]!.at} (4 s ago), within one schedule period (10 s)`,
      });
    });

    it('a local file newer than the versions kept counts at least one build more', () => {
      const unkept = { ...moving, digest: '9999999999999999', publishedAtMs: builtAt(31), nowMs: builtAt(31) + 3_000 };
      expect(judgeCopy(copyOf(30), unkept).detail).toBe(
        'not the build of parserfile.xml published 3 s ago, within one schedule period (10 s)',
      );
      expect(judgeCopy(copyOf(28), unkept).detail).toMatch(/^at least 3 builds of parserfile.xml behind/);
    });

    it('without versions kept it errs young: dated by the local file', () => {
      const { versions: _, ...bare } = moving;
      expect(judgeCopy(copyOf(12), bare).copy).toBe('behind');
    });
  });
});
