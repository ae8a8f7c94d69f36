// The caching headers every export carries (`server.headers` in the config): `Cache-Control` for browsers and
// plain proxies, `CDN-Cache-Control` (RFC 9213) for a CDN in front, which honours it over Cache-Control. The
// built-in server sends them, `ratefile edge` prints them for nginx and Cloudflare. Defaults: every client asks
// again each time (`no-cache`, answered 304 while unchanged), and a CDN keeps a copy at most one schedule period,
// so the public copy is never more than one build behind.

/** The two headers as they are sent. */
export interface ExportHeaders {
  readonly cacheControl: string;
  readonly cdnCacheControl: string;
}

/**
 * `no-cache`, `max-age=30`, `public, max-age=30, stale-if-error=60`, `private="x"`: directives with optional values;
 * no control character anywhere (a header cannot carry one, and the recipes of `ratefile edge` write it raw).
 */
export const cacheControlPattern =
  /^[A-Za-z][A-Za-z-]*(=(\d+|"[^"\\\u0000-\u001f\u007f]*"|[A-Za-z0-9-]+))?( *, *[A-Za-z][A-Za-z-]*(=(\d+|"[^"\\\u0000-\u001f\u007f]*"|[A-Za-z0-9-]+))?)*$/;

export const DEFAULT_CACHE_CONTROL = 'no-cache';

/** The CDN's default: `max-age=` the schedule period in whole seconds (at least 1). */
export function defaultCdnCacheControl(schedulePeriodMs: number): string {
  return `max-age=${Math.max(1, Math.floor(schedulePeriodMs / 1000))}`;
}

export function exportHeaders(
  configured: { cacheControl?: string | undefined; cdnCacheControl?: string | undefined },
  schedulePeriodMs: number,
): ExportHeaders {
  return {
    cacheControl: configured.cacheControl ?? DEFAULT_CACHE_CONTROL,
    cdnCacheControl: configured.cdnCacheControl ?? defaultCdnCacheControl(schedulePeriodMs),
  };
}

/** The longest time, in seconds, a cache may keep a copy under these directives without asking (`max-age`, `s-maxage`); 0 for `no-cache`/`no-store`. */
export function freshSeconds(directives: string): number | undefined {
  const parts = directives
    .toLowerCase()
    .split(',')
    .map((part) => part.trim());
  if (parts.some((part) => part === 'no-cache' || part === 'no-store')) return 0;
  const ages = parts.flatMap((part) => {
    const match = /^(s-maxage|max-age)=(\d+)$/.exec(part);
    return match ? [Number(match[2])] : [];
  });
  return ages.length === 0 ? undefined : Math.max(...ages);
}
