// The hash of a loaded config that two instances of a warm standby compare: the same file in two folders on two
// hosts hashes alike (paths are taken relative to the config's folder; where it listens, its log cadence and its
// own `ha:` block are left out), and any change to what is priced or published changes it. Pure.
import { createHash } from 'node:crypto';
import { relative, sep } from 'node:path';
import type { Config } from '../../model/config.js';

/** Fields that may differ between the hosts of one deployment without changing a published byte. */
const hostFields = new Set(['file', 'dir', 'server', 'log', 'ha', 'warnings']);

function canonical(value: unknown, dir: string): unknown {
  if (typeof value === 'string')
    return value === dir || value.startsWith(dir + sep) ? `./${relative(dir, value).split(sep).join('/')}` : value;
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? undefined : value;
  if (value instanceof Map) return [...value].map(([key, entry]) => [canonical(key, dir), canonical(entry, dir)]);
  if (value instanceof Set) return [...value].map((entry) => canonical(entry, dir));
  if (value instanceof RegExp) return String(value);
  if (Array.isArray(value)) return value.map((entry) => canonical(entry, dir));
  // Decimals (and anything else with a toJSON) as they serialise.
  const withJson = value as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') return withJson.toJSON();
  return Object.fromEntries(
    Object.keys(value)
      .sort()
      .map((key) => [key, canonical((value as Record<string, unknown>)[key], dir)] as const)
      .filter(([, entry]) => entry !== undefined),
  );
}

/** The first 16 hex digits of the SHA-256 of the config's canonical form. */
export function configHash(config: Config): string {
  const kept = Object.fromEntries(Object.entries(config).filter(([key]) => !hostFields.has(key)));
  return createHash('sha256')
    .update(JSON.stringify(canonical(kept, config.dir)))
    .digest('hex')
    .slice(0, 16);
}
