// What the dashboard may show to anyone who reaches it: texts from errors and reasons without absolute paths,
// credentials in URLs, URL paths or queries (where API keys travel), or the values of secret environment variables.
import { isAbsolute } from 'node:path';
import { redact } from '../../base/secrets.js';

export interface Redaction {
  /** Folders whose paths are shown relative to them (the config's folder first). */
  roots: readonly string[];
  /** Values never shown (secret environment variables, auth headers). */
  secrets: readonly string[];
}

/** Environment variables whose names say they hold a secret; short values would match ordinary words. */
const secretName = /KEY|TOKEN|SECRET|PASS|AUTH|CREDENTIAL|COOKIE|SESSION/i;

export function secretValues(
  env: Readonly<Record<string, string | undefined>>,
  named: readonly string[] = [],
): string[] {
  return Object.entries(env)
    .filter(
      ([name, value]) => value !== undefined && value.length >= 6 && (secretName.test(name) || named.includes(name)),
    )
    .map(([, value]) => value!);
}

const url = /\b([a-z][a-z0-9+.-]*):\/\/([^\s/?#"'<>]*)([^\s"'<>]*)/gi;
// An absolute path of two or more segments, not part of a URL (no `:` or a word character before it).
const absolutePath = /(^|[\s(["'=,])((?:\/[^\s/:;,'"()<>[\]]+){2,})/g;

export function publicText(text: string, redaction: Redaction): string {
  // Credentials first (secrets.ts: known ones in any form, token-like values), then this page's own list.
  let out = redact(text, ...redaction.secrets.filter((secret) => secret.length >= 4));
  // Host only: userinfo (user:password@) dropped, the path and query (keys, tokens) folded to `/…`.
  out = out.replace(url, (_match, scheme: string, authority: string, rest: string) => {
    const host = authority.slice(authority.lastIndexOf('@') + 1);
    return `${scheme}://${host}${rest.length > 1 ? '/…' : ''}`;
  });
  const roots = redaction.roots
    .filter((root) => isAbsolute(root) && root.length > 1)
    .sort((a, b) => b.length - a.length);
  for (const root of roots) {
    const prefix = root.endsWith('/') ? root : `${root}/`;
    out = out.split(prefix).join('');
  }
  return out.replace(
    absolutePath,
    (_match, before: string, path: string) => `${before}…/${path.slice(path.lastIndexOf('/') + 1)}`,
  );
}

/** Every string in a JSON-like value through publicText (for /healthz, which serves the status). */
export function publicValue<T>(value: T, redaction: Redaction): T {
  if (typeof value === 'string') return publicText(value, redaction) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => publicValue(item, redaction)) as T;
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, publicValue(item, redaction)])) as T;
  }
  return value;
}
