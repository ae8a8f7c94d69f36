// Where an `sql` reserve source reads: the database URL (from an environment variable, or a literal one without a
// password), its dialect by scheme, the `host:port/database` named in messages, and the credentials that must be
// cut out of every message. The URL itself is never quoted anywhere.
import { RatefileError } from '../../base/errors.js';
import { redact, registerSecret } from '../../base/secrets.js';

export type SqlDialect = 'postgres' | 'mysql';

const dialects: Record<string, SqlDialect> = {
  'postgres:': 'postgres',
  'postgresql:': 'postgres',
  'mysql:': 'mysql',
  'mariadb:': 'mysql',
};
const defaultPorts: Record<SqlDialect, string> = { postgres: '5432', mysql: '3306' };
export const urlExample = 'postgres://user:password@host:5432/database or mysql://user:password@host:3306/database';

export interface SqlTarget {
  dialect: SqlDialect;
  url: URL;
  /** `postgres db.internal:5432/backoffice`: what messages name; no user, no password. */
  where: string;
  /** The user and password (decoded and as written), removed from every message. */
  secrets: { user: string; password: string[] };
}

/** The parsed URL and its dialect, or what is wrong with it in words that never quote the URL. */
export function parseSqlUrl(text: string): { url: URL; dialect: SqlDialect } | string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `expected a URL like ${urlExample}`;
  }
  const dialect = dialects[url.protocol];
  if (!dialect)
    return `expected a URL starting postgres://, postgresql://, mysql:// or mariadb://, got scheme ${JSON.stringify(url.protocol.slice(0, 20))}`;
  return { url, dialect };
}

/** Query parameters that carry a password to the driver (pg reads `?password=…` like the user-info's). */
const passwordParameter = /pass|pwd|secret|token/i;

/** Whether the URL holds a password: in its user-info or in its query. */
export const holdsPassword = (url: URL) =>
  url.password !== '' || [...url.searchParams.keys()].some((name) => passwordParameter.test(name));

/** The URL with its passwords (user-info and query) replaced by `***`, for a config error about it. */
export function maskedUrl(url: URL): string {
  const masked = new URL(url.href);
  if (masked.password) masked.password = '***';
  for (const name of [...masked.searchParams.keys()])
    if (passwordParameter.test(name)) masked.searchParams.set(name, '***');
  return masked.href.replace(/=\*\*\*/g, '=***').replace(/=%2A%2A%2A/g, '=***');
}

/** A URL's percent-encoded part decoded; as written when it is not valid encoding. */
export const decode = (text: string) => {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
};

/** The target of a source whose URL is `text` (already read from the environment); `label` names where it came from. */
export function sqlTarget(text: string, label: string): SqlTarget {
  const parsed = parseSqlUrl(text);
  if (typeof parsed === 'string') throw new RatefileError('E_SOURCE', `${label}: ${parsed}`);
  const { url, dialect } = parsed;
  const host = url.hostname || 'localhost';
  const where = `${dialect} ${host}:${url.port || defaultPorts[dialect]}${url.pathname.length > 1 ? url.pathname : ''}`;
  const password = url.password ? [...new Set([decode(url.password), url.password])] : [];
  for (const secret of password) registerSecret(secret);
  return { dialect, url, where, secrets: { user: decode(url.username), password } };
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * What a driver said, without the target's credentials: the password wherever it occurs, the user name where it
 * stands as a word (drivers quote it: `for user "ratefile"`, `'ratefile'@'localhost'`), so a short name does not
 * maul other words. Only driver text goes through here: our own messages hold no credentials.
 */
export function redactCredentials(text: string, secrets: SqlTarget['secrets']): string {
  const out = redact(text, ...secrets.password);
  return secrets.user ? out.replace(new RegExp(`(?<![\\w$])${escapeRegExp(secrets.user)}(?![\\w$])`, 'g'), '***') : out;
}
