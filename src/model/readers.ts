// The `monitors:` block of the config: the monitors expected to read the exports, each recognised by its user agent
// and/or its address, and how long it may go without a fetch. Also `accessLog:`, nginx's log read for the same.
import { ipFamily } from '../base/addresses.js';
import { z } from 'zod';
import { duration, text } from '../base/config/fields.js';

/** An address (`46.4.58.77`, `2001:db8::1`) or a network in CIDR form (`162.19.0.0/16`, `2001:db8::/32`). */
export function parseNetwork(value: string): { address: string; bits: number; family: 4 | 6 } | undefined {
  const [address = '', prefix, ...rest] = value.trim().split('/');
  const family = ipFamily(address);
  if (rest.length > 0 || (family !== 4 && family !== 6)) return undefined;
  const max = family === 4 ? 32 : 128;
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined;
  const bits = prefix === undefined ? max : Number(prefix);
  return bits > max ? undefined : { address, bits, family };
}

const network = z.string().refine((value) => parseNetwork(value) !== undefined, {
  error: (issue) =>
    `expected an IP address or a CIDR network like "46.4.58.77" or "2001:db8::/32", got ${JSON.stringify(issue.input)}`,
});

/** `/…/` is a regular expression (case-insensitive); anything else a case-insensitive substring of the user agent. */
export function agentMatcher(pattern: string): (agent: string) => boolean {
  if (pattern.length > 2 && pattern.startsWith('/') && pattern.endsWith('/')) {
    const expression = new RegExp(pattern.slice(1, -1), 'i');
    return (agent) => expression.test(agent);
  }
  const needle = pattern.toLowerCase();
  return (agent) => agent.toLowerCase().includes(needle);
}

const agent = z
  .string()
  .min(1)
  .max(200)
  .refine(
    (value) => {
      try {
        agentMatcher(value);
        return true;
      } catch {
        return false;
      }
    },
    { error: 'expected a user-agent text, or a regular expression between slashes like "/^BestChange/"' },
  );

const exportFile = text(
  /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(xml|json)$/,
  'an export file name like "parserfile.xml"',
);

const monitor = z
  .strictObject({
    agent: agent
      .optional()
      .describe(
        'Its user agent: a case-insensitive part of it, or a regular expression between slashes ("/^BestChange/").',
      ),
    address: z
      .union([network, z.array(network).min(1)])
      .optional()
      .describe('Its address: one IP address or CIDR network, or a list; with `agent`, both must match.'),
    window: duration
      .refine((ms) => ms >= 1_000, { error: 'expected a duration of 1s or more, like "10m"' })
      .default(600_000)
      .describe('An alert starts when it has not fetched within this long (default 10m).'),
    exports: z
      .array(exportFile)
      .min(1)
      .optional()
      .describe('The exports it reads, each to be fetched within the window (default: any export).'),
  })
  .refine((entry) => entry.agent !== undefined || entry.address !== undefined, {
    error: 'expected `agent`, `address` or both: how its fetches are recognised',
  });

export const monitorName = text(/^[a-z][a-z0-9_-]{0,39}$/, 'a monitor name in lower case like "bestchange"').refine(
  (name) => name !== 'other',
  { error: '"other" names the fetches no monitor matched; choose another name' },
);

export const monitorsSchema = z
  .record(monitorName, monitor)
  .default({})
  .describe(
    'Monitors expected to read the exports, by name: their fetches are recognised by user agent and/or address, and an alert starts when one has not fetched within its window or was answered with an error.',
  );

export const accessLogSchema = z
  .string()
  .min(1)
  .optional()
  .describe(
    "nginx's access log (the combined format deploy/nginx.conf writes), relative to this file: `start` reads the exports' fetches from it as from its own server.",
  );

type MonitorEntry = z.output<typeof monitor>;

/** A monitor as the config says, normalized: its addresses always a list. */
export interface MonitorConfig {
  readonly name: string;
  readonly agent?: string;
  readonly addresses: readonly string[];
  readonly windowMs: number;
  readonly exports?: readonly string[];
}

export function normalizeMonitors(entries: Readonly<Record<string, MonitorEntry>>): MonitorConfig[] {
  return Object.entries(entries).map(([name, entry]) => ({
    name,
    ...(entry.agent === undefined ? {} : { agent: entry.agent }),
    addresses: entry.address === undefined ? [] : typeof entry.address === 'string' ? [entry.address] : entry.address,
    windowMs: entry.window,
    ...(entry.exports === undefined ? {} : { exports: entry.exports }),
  }));
}
