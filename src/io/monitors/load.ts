// The shipped monitor profiles (data/monitors/<name>.yaml), read and checked against one schema. No code per monitor.
import { readdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { z } from 'zod';
import { currencyCode, describeValue } from '../../base/config/fields.js';
import { configError, formatProblem, readYamlFile, validateYaml } from '../../base/config/yaml.js';
import { closest } from '../../base/config/problems.js';
import { quoteValue, RatefileError } from '../../base/errors.js';
import { monitorFormats } from '../../model/formats.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';

const oneOf = <T extends readonly [string, ...string[]]>(values: T) =>
  z.enum(values, { error: (issue) => `expected one of ${values.join(', ')}, got ${describeValue(issue.input)}` });

const compiles = (pattern: string) => {
  try {
    new RegExp(pattern);
    return true;
  } catch {
    return false;
  }
};

export const profileSchema = z
  .strictObject({
    title: z.string().min(1),
    parser: oneOf(['public', 'documented'] as const),
    formats: z.array(oneOf(monitorFormats)).min(1),
    codes: z.record(currencyCode, currencyCode).default({}),
    fees: oneOf(['as-written', 'plain', 'percent-folded'] as const),
    minfee: oneOf(['fixed', 'market-gap', 'ignored'] as const),
    limits: oneOf(['required', 'recommended'] as const),
    minBelowMax: z.boolean(),
    fallbacks: z.record(z.string().min(1), z.array(z.string().min(1)).min(1)).default({}),
    rateDecimals: z.number().int().min(0).max(18).optional(),
    duplicates: oneOf(['first-wins'] as const).optional(),
    negativeRate: oneOf(['absolute'] as const).optional(),
    labels: oneOf(['all', 'first-cash-only'] as const),
    order: oneOf(['strict', 'any'] as const),
    contentType: z.string().min(1).refine(compiles, { error: 'expected a regular expression' }).optional(),
    polling: z.string().optional(),
    robots: z.array(z.string()).default([]),
    sources: z.record(z.string(), z.string().min(1)).refine((sources) => Object.keys(sources).length > 0, {
      error: 'expected at least one source of the rules',
    }),
  })
  .describe('ratefile monitor profile');

/** The folder of the shipped profiles, beside dist/ in the package. */
export const shippedProfiles = fileURLToPath(new URL('../../../data/monitors/', import.meta.url));

const loaded = new Map<string, Promise<ReadonlyMap<string, MonitorProfile>>>();

/** Every profile in `dir` by name, checked; every problem of every file at once (E_CONFIG). Read once per folder. */
export function loadProfiles(dir: string = shippedProfiles): Promise<ReadonlyMap<string, MonitorProfile>> {
  let profiles = loaded.get(dir);
  if (!profiles) {
    profiles = readProfiles(dir);
    loaded.set(dir, profiles);
    profiles.catch(() => loaded.delete(dir));
  }
  return profiles;
}

async function readProfiles(dir: string): Promise<ReadonlyMap<string, MonitorProfile>> {
  const names = (await readdir(dir)).filter((name) => /^[a-z0-9][a-z0-9-]*\.yaml$/.test(name)).sort();
  const profiles = new Map<string, MonitorProfile>();
  const problems: string[] = [];
  for (const fileName of names) {
    const file = await readYamlFile(join(dir, fileName), `data/monitors/${fileName}`);
    const { data, problems: found } = validateYaml(file, profileSchema);
    problems.push(...found.map((problem) => `data/monitors/${fileName}: ${formatProblem(file, problem)}`));
    if (!data) continue;
    const { polling, rateDecimals, duplicates, negativeRate, contentType, ...rest } = data;
    profiles.set(fileName.replace(/\.yaml$/, ''), {
      name: fileName.replace(/\.yaml$/, ''),
      ...rest,
      ...(polling === undefined ? {} : { polling }),
      ...(rateDecimals === undefined ? {} : { rateDecimals }),
      ...(duplicates === undefined ? {} : { duplicates }),
      ...(negativeRate === undefined ? {} : { negativeRate }),
      ...(contentType === undefined ? {} : { contentType }),
    });
  }
  if (problems.length > 0) throw configError('monitor profiles', problems);
  return profiles;
}

/** The profile named `name`, or a usage error naming the profiles there are. */
export async function profileNamed(name: string, dir?: string): Promise<MonitorProfile> {
  const profiles = await loadProfiles(dir);
  const profile = profiles.get(name);
  if (profile) return profile;
  const hint = closest(name, profiles.keys());
  throw new RatefileError(
    'E_USAGE',
    `unknown monitor ${quoteValue(name)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected one of ${[...profiles.keys()].join(', ')}`,
  );
}
