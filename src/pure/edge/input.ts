// What `ratefile edge` prints its recipes from: the export paths as the monitors fetch them, the monitors of the
// config (`monitors:`: their addresses and user agents), and the caching headers every export carries.
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
