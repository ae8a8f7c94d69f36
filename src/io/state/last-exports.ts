// The rates ratefile's own export files publish, read back from the output folder (or, with `publish.s3` and no
// local file, from the bucket) as the last published rates of directions guard.json does not know: a lost or new
// state folder must not let a first rate through unbounded. Read only when a build would publish a first rate.
import { join } from 'node:path';
import { Decimal } from '../../base/decimal.js';
import { readRegularBytes } from '../../base/files.js';
import type { Config, ExportTemplate } from '../../model/config.js';
import { isPremiumFormat } from '../../model/formats.js';
import type { LastRate } from '../../pure/guards/guards.js';
import { readExportRates } from '../../pure/sources/export-rates.js';
import { s3Publisher } from '../hosting/s3.js';

/** The largest export read back: a file past it (not ratefile's, or broken) bounds nothing. */
export const maxExportReadBytes = 32 * 1024 * 1024;

/** The loader a build calls when a first rate would be published (GuardContext.lastExports). */
export const lastExportsLoader =
  (config: Config, outDir: string): (() => Promise<ReadonlyMap<string, LastRate>>) =>
  () =>
    readLastExports(config, outDir);

/**
 * Each direction of the config that an export publishes, at the rate before the export's markup (`out ÷ in ÷
 * (1 − markup)`), from the first export that has it (those without a markup first, then in config order). An
 * unreadable file, or one that is not XML or JSON (Premium's text files), is skipped.
 */
export async function readLastExports(config: Config, outDir: string): Promise<Map<string, LastRate>> {
  const ids = new Set(config.directions.map((direction) => direction.id));
  const rates = new Map<string, LastRate>();
  // An export without a markup first: its rates are the directions' own, rounded only.
  const templates = [...config.exports].sort((a, b) => Number(!a.markup.isZero()) - Number(!b.markup.isZero()));
  for (const template of templates) {
    if (isPremiumFormat(template.format)) continue;
    const file = await exportBytes(config, outDir, template.file);
    if (!file) continue;
    const read = readExportRates(file.bytes);
    if ('problem' in read) continue;
    const codes = new Map(Object.entries(template.aliases).map(([code, alias]) => [alias, code]));
    for (const item of read.rates) {
      const id = `${codes.get(item.from) ?? item.from}>${codes.get(item.to) ?? item.to}`;
      if (item.refused !== undefined || !ids.has(id) || rates.has(id)) continue;
      const rate = rateBeforeMarkup(item.in, item.out, template);
      if (rate) rates.set(id, { rate, at: file.at.toISOString(), file: file.name });
    }
  }
  return rates;
}

function rateBeforeMarkup(inText: string, outText: string, template: ExportTemplate): string | undefined {
  try {
    const rate = new Decimal(outText).div(inText).div(new Decimal(1).minus(template.markup));
    // Published rates are rounded to a currency's precision: digits past 15 would only be the division's.
    return rate.isFinite() && rate.greaterThan(0) ? rate.toSignificantDigits(15).toString() : undefined;
  } catch {
    return undefined;
  }
}

/** The export as published here, or as the bucket holds it when there is no local file; bounded. */
async function exportBytes(
  config: Config,
  outDir: string,
  name: string,
): Promise<{ bytes: Uint8Array; at: Date; name: string } | undefined> {
  try {
    const { bytes, stats } = await readRegularBytes(join(outDir, name), maxExportReadBytes);
    return { bytes, at: stats.mtime, name };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || !config.publish.s3) return undefined;
  }
  const object = await s3Publisher(config.publish.s3, config.stateDir).read(name, maxExportReadBytes);
  return object && { bytes: object.bytes, at: object.at, name: object.url };
}
