// What ratefile's own requests say about themselves, and how a message names where one went. Every request carries
// the User-Agent `ratefile/<version>` (the config's `userAgent:` replaces it): a CDN in front of a venue or a bank
// that blocks Node's default `node` lets a named client through, and its operator can tell who asks. A failed
// request names the host and port it went to (`api.binance.com:443`), never the URL's credentials or query.
import { readFileSync } from 'node:fs';

let version: string | undefined;

/** The version of the installed package (package.json), read once. */
export function ratefileVersion(): string {
  version ??= (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string })
    .version;
  return version;
}

/** `ratefile/1.4.0`: the User-Agent of every request unless the config's `userAgent:` says otherwise. */
export const defaultUserAgent = (): string => `ratefile/${ratefileVersion()}`;

/** The User-Agent of a fetch made as a monitor's robot makes it (probe, the watch from outside), saying what it is. */
export const monitorLikeAgent = (userAgent: string): string =>
  `${userAgent} (a monitor-like check of an exchange-rates export file)`;

const defaultPorts: Record<string, string> = { 'http:': '80', 'https:': '443' };

/** `api.binance.com:443`, `127.0.0.1:9999`, `[::1]:8080`: where a request went, without userinfo, path or query. */
export function hostAndPort(url: URL | string): string {
  const parsed = url instanceof URL ? url : URL.canParse(url) ? new URL(url) : undefined;
  if (parsed === undefined) return 'an unreadable address';
  const port = parsed.port || defaultPorts[parsed.protocol];
  return port ? `${parsed.hostname}:${port}` : parsed.hostname;
}
