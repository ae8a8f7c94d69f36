// What must never leave the process: the credentials of the environment (the variables the config names, and those
// whose names say they hold one) and whatever looks like a credential in a third party's answer (`Bearer …`,
// `key=…`, `"token": "…"`, a URL's user-info). One redaction serves every message, log line, state file, alert and
// page: `redactSecrets` where a text from outside is made (before it is quoted or cut, or a cut token escapes) and
// again at each sink as a safety net. Imports nothing of ratefile, so errors.ts and log.ts can use it.

export const REDACTED = '***';

/** Shorter values would match ordinary words. */
const MIN_SECRET_LENGTH = 6;

const known = new Set<string>();
let knownPattern: RegExp | undefined;

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The base64 text of `part` wherever it starts in a longer encoded value (Basic auth's `user:password`, a cookie):
 * for each of the three alignments, the characters that depend on `part` alone.
 */
function base64Runs(part: string): string[] {
  const bytes = Buffer.from(part);
  const runs: string[] = [];
  for (const offset of [0, 1, 2]) {
    const shifted = Buffer.concat([Buffer.alloc(offset), bytes]);
    const start = [0, 2, 3][offset]!;
    const end = Math.floor((shifted.length * 8) / 6);
    for (const encoded of [shifted.toString('base64'), shifted.toString('base64url')])
      runs.push(encoded.slice(start, end));
  }
  return runs;
}

/** Every form a secret travels in: as is, URL-encoded (both ways), JSON-escaped, base64; a scheme's token ("Bearer <token>") alone too. */
export function secretForms(secret: string): string[] {
  const parts = [secret, ...secret.split(/\s+/).filter((part) => part.length >= 8 && part !== secret)];
  const forms = new Set<string>();
  for (const part of parts) {
    forms.add(part);
    forms.add(encodeURIComponent(part));
    forms.add(new URLSearchParams({ s: part }).toString().slice(2));
    forms.add(JSON.stringify(part).slice(1, -1));
    for (const run of base64Runs(part)) forms.add(run);
  }
  return [...forms].filter((form) => form.length >= MIN_SECRET_LENGTH);
}

/** Remember a secret for the life of the process: from now on no text shows it, in any of its forms. */
export function registerSecret(value: string | undefined): void {
  if (value === undefined || value.trim().length < MIN_SECRET_LENGTH) return;
  let added = false;
  for (const form of secretForms(value)) {
    if (!known.has(form)) {
      known.add(form);
      added = true;
    }
  }
  // Longest first, so a whole secret goes before the token inside it.
  if (added)
    knownPattern = new RegExp(
      [...known]
        .sort((a, b) => b.length - a.length)
        .map(escapeRegExp)
        .join('|'),
      'g',
    );
}

/** Environment variables whose names say they hold a credential. */
const credentialVariable = /(KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASS|CREDENTIALS?)$/i;

/** Register the credentials of an environment: those whose names say so, and `named` (what a config names). */
export function registerEnvSecrets(
  env: Readonly<Record<string, string | undefined>>,
  named: Iterable<string> = [],
): void {
  const names = new Set(named);
  for (const [name, value] of Object.entries(env))
    if (names.has(name) || credentialVariable.test(name)) registerSecret(value);
}

/** Query parameter and field names that carry credentials. */
const credentialNameWhole =
  /^[\w-]*(?:key|token|secret|password|passwd|pwd|signature|auth|credential|session|cookie)[\w-]*$/i;
const variableName = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/** The secrets written into a URL of the config: its user-info, and query values under credential names or long enough to be keys. */
function urlSecrets(text: string): string[] {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return [];
  }
  // A user name is no secret (and would maul words), unless it is long enough to be a token (`https://<token>@host`).
  const found = [url.password, decodeSafely(url.password), ...(url.username.length >= 16 ? [url.username] : [])];
  for (const [name, value] of url.searchParams)
    if (credentialNameWhole.test(name) || (value.length >= 16 && /\d/.test(value) && /[A-Za-z]/.test(value)))
      found.push(value);
  return found;
}

/** Register the credentials written into a URL given on the command line (`ratefile probe URL`): never shown again. */
export function registerUrlSecrets(text: string): void {
  for (const secret of urlSecrets(text)) registerSecret(secret);
}

function decodeSafely(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

const registered = new WeakMap<object, object>();

/**
 * Register what a loaded config makes secret: the value of every environment variable it names (`env`, `keyEnv`,
 * `secretEnv`, `passwordEnv`…, RATEFILE_COINGECKO_KEY by default), the password of a database URL held in one, and
 * the credentials written in its URLs. Called wherever a config is loaded or built; registering again is cheap.
 */
export function registerConfigSecrets(config: unknown, env: Readonly<Record<string, string | undefined>>): void {
  // Build after build with the same config and environment: nothing new to learn.
  if (config !== null && typeof config === 'object') {
    if (registered.get(config) === env) return;
    registered.set(config, env);
  }
  const named = new Set(['RATEFILE_COINGECKO_KEY']);
  const walk = (value: unknown, key: string, depth: number): void => {
    if (depth > 8) return;
    if (typeof value === 'string') {
      if ((key === 'env' || key.endsWith('Env')) && variableName.test(value)) named.add(value);
      else if (key === 'url' || key === 'baseUrl') for (const secret of urlSecrets(value)) registerSecret(secret);
    } else if (Array.isArray(value)) {
      for (const item of value) walk(item, key, depth + 1);
    } else if (value !== null && typeof value === 'object' && !(value instanceof Map) && !(value instanceof Date)) {
      for (const [name, item] of Object.entries(value)) walk(item, name, depth + 1);
    }
  };
  if (config !== null && typeof config === 'object') {
    const { sources, reserveSources, alerts, publish, control } = config as Record<string, unknown>;
    walk({ sources, reserveSources, alerts, publish, control }, '', 0);
  }
  // A private export's file name (a template's `private: true`): the name is what keeps the file from strangers.
  const exports = (config as { exports?: unknown } | null)?.exports;
  if (Array.isArray(exports))
    for (const entry of exports as { private?: unknown; file?: unknown }[])
      if (entry?.private === true && typeof entry.file === 'string') registerSecret(entry.file);
  registerEnvSecrets(env, named);
  // A database URL from the environment: its password alone may be echoed by the server.
  for (const name of named) for (const secret of urlSecrets(env[name] ?? '')) registerSecret(secret);
}

// What looks like a credential in a third party's answer, whoever's it is. Each pattern has a character it cannot
// match without (`needs`), so most texts (a direction id, a plain reason) cost a few `includes`, never a regex.
const keepName = (match: string, name: string, value: string) =>
  credentialNameWhole.test(name) && value !== REDACTED ? match.slice(0, match.length - value.length) + REDACTED : match;
const patterns: {
  needs: string;
  pattern: RegExp;
  replacement: string | ((match: string, ...groups: string[]) => string);
}[] = [
  // An Authorization header's value.
  { needs: ' ', pattern: /\b(Bearer)\s+[^\s"'<>,;]+/gi, replacement: `$1 ${REDACTED}` },
  { needs: ' ', pattern: /\b(Basic)\s+[A-Za-z0-9+/]{8,}={0,2}/g, replacement: `$1 ${REDACTED}` },
  // key=…, api_key=…, access_token=… in a query, a form or a text.
  { needs: '=', pattern: /([\w-]+)=([^&\s"'<>;,]+)/g, replacement: keepName },
  // "api_key": "…" in an echoed JSON document.
  {
    needs: '"',
    pattern: /"([\w-]+)"\s*:\s*"([^"]+)"/g,
    replacement: (match, name = '', value = '') => `${keepName(match.slice(0, -1), name, value)}"`,
  },
  // user:password@ in a URL: the password (a placeholder like `user:password@host` in our own hints stays), and a
  // user-info without one that is long enough to be a token (`https://<token>@host`).
  {
    needs: '@',
    pattern: /\b([a-z][a-z0-9+.-]*:\/\/[^\s/?#@:"'<>]*:)(?!password@|\*\*\*@)[^\s/?#@"'<>]+@/gi,
    replacement: `$1${REDACTED}@`,
  },
  { needs: '@', pattern: /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/?#@:"'<>]{16,}@/gi, replacement: `$1${REDACTED}@` },
];

/** `text` without any known secret (in any form) or anything that looks like a credential. */
export function redactSecrets(text: string): string {
  if (text.length < 4) return text;
  let out = knownPattern ? text.replace(knownPattern, REDACTED) : text;
  for (const { needs, pattern, replacement } of patterns) {
    if (out.includes(needs)) out = out.replace(pattern, replacement as string);
  }
  return out;
}

/** Every string in a JSON-like value (plain objects and arrays) through `change`; keys are ours and stay. */
export function mapStrings<T>(value: T, change: (text: string) => string): T {
  if (typeof value === 'string') return change(value) as T;
  if (Array.isArray(value)) return value.map((item: unknown) => mapStrings(item, change)) as T;
  if (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, mapStrings(item, change)])) as T;
  }
  return value;
}

/** Every string in a JSON-like value through redactSecrets (status, alert state, log fields). */
export const redactValue = <T>(value: T): T => mapStrings(value, redactSecrets);

/** `text` without these particular secrets (a source's own auth header, a database password), on top of redactSecrets. */
export function redact(text: string, ...secrets: readonly (string | undefined)[]): string {
  const forms = [...new Set(secrets.flatMap((secret) => (secret ? [secret, ...secretForms(secret)] : [])))].sort(
    (a, b) => b.length - a.length,
  );
  return redactSecrets(forms.reduce((out, form) => out.split(form).join(REDACTED), text));
}
