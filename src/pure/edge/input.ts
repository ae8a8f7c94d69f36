// What `ratefile edge` prints its recipes from: the export paths as the monitors fetch them, the monitors of the
// config (`monitors:`: their addresses and user agents), and the caching headers every export carries.
import { hasControls, quoteValue, RatefileError } from '../../base/errors.js';
import type { MonitorConfig } from '../../model/readers.js';
import type { ExportHeaders } from './headers.js';

export interface EdgeInput {
  /** The config file as the operator names it, for the first line of the recipe. */
  readonly configFile: string;
  /** The export paths as the monitors fetch them (`/parserfile.xml`), in config order. */
  readonly paths: readonly string[];
  readonly monitors: readonly MonitorConfig[];
  readonly headers: ExportHeaders;
  /** The public host name, when given (`--host`): Cloudflare's rules then match it too. */
  readonly host?: string;
  /** Seconds the schedule may leave between two builds. */
  readonly periodSeconds: number;
}

/** One monitor address with the monitor it belongs to. */
export interface MonitorAddress {
  readonly address: string;
  readonly monitor: string;
}

/** Every address of every monitor, once each (the first monitor naming it keeps it), in config order. */
export function monitorAddresses(monitors: readonly MonitorConfig[]): MonitorAddress[] {
  const seen = new Set<string>();
  const addresses: MonitorAddress[] = [];
  for (const monitor of monitors)
    for (const address of monitor.addresses)
      if (!seen.has(address)) {
        seen.add(address);
        addresses.push({ address, monitor: monitor.name });
      }
  return addresses;
}

/** Monitors the config knows only by their user agent: no address rule can let them through. */
export const agentOnly = (monitors: readonly MonitorConfig[]): MonitorConfig[] =>
  monitors.filter((monitor) => monitor.addresses.length === 0 && monitor.agent !== undefined);

/** The export paths under a public prefix (`/`, `/rates/`): `/rates/parserfile.xml`. */
export function exportPaths(files: readonly string[], prefix: string): string[] {
  const base = `/${prefix.replace(/^\/+|\/+$/g, '')}/`.replace('//', '/');
  return files.map((file) => `${base}${file}`);
}

/** A path segment of `--prefix`: characters an nginx regex, a Rules literal and a URL all take as they are. */
const prefixSegment = /^[A-Za-z0-9._~-]+$/;

/** The `--prefix` given, checked: only plain segments, no dot segments (nginx resolves them, so no path would match). */
export function checkedPrefix(prefix: string): string {
  const segments = prefix.split('/').filter((segment) => segment !== '');
  if (segments.every((segment) => prefixSegment.test(segment) && segment !== '.' && segment !== '..')) return prefix;
  throw new RatefileError(
    'E_USAGE',
    `--prefix: expected a path of letters, digits, "-", ".", "_" and "~" between slashes, like "/rates/", got ${quoteValue(prefix)}`,
  );
}

const hostName =
  /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

/** The `--host` given, checked: a DNS name (an IDN in its xn-- form), which the Rules literal takes as it is. */
export function checkedHost(host: string): string {
  if (hostName.test(host)) return host;
  throw new RatefileError('E_USAGE', `--host: expected a host name like "rates.example.com", got ${quoteValue(host)}`);
}

/**
 * Every other text the recipes write (the config file's name, the monitors' names, addresses and user agents, the
 * caching headers) without a control character: a newline in one would start a line of its own in the recipe, an
 * nginx directive. The config's own checks allow them in a user agent; the recipe cannot.
 */
export function checkRecipeTexts(input: EdgeInput): void {
  const config = (where: string, text: string): RecipeText => ({ where, text, code: 'E_CONFIG' });
  const texts: RecipeText[] = [
    { where: "the config file's name", text: input.configFile, code: 'E_USAGE' },
    config('server.headers.Cache-Control', input.headers.cacheControl),
    config('server.headers.CDN-Cache-Control', input.headers.cdnCacheControl),
    ...input.paths.map((path) => config('an export path', path)),
    ...input.monitors.flatMap((monitor) => [
      config(`monitors.${monitor.name}`, monitor.name),
      ...(monitor.agent === undefined ? [] : [config(`monitors.${monitor.name}.agent`, monitor.agent)]),
      ...monitor.addresses.map((address) => config(`monitors.${monitor.name}.address`, address)),
    ]),
  ];
  const refused = texts.find(({ text }) => hasControls(text));
  if (refused === undefined) return;
  throw new RatefileError(
    refused.code,
    `${refused.where}: expected no control characters (they would reach the recipe raw), got ${quoteValue(refused.text)}`,
  );
}

interface RecipeText {
  readonly where: string;
  readonly text: string;
  readonly code: 'E_USAGE' | 'E_CONFIG';
}
