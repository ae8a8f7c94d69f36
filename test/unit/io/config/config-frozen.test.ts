// The loaded config is deeply immutable (issue 24): caches keyed by its objects' identity cannot go stale, because
// a write into it throws where it is made. The compiler refuses the same writes (the @ts-expect-error lines).
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { configReloader } from '../../../../src/io/config/reload.js';
import { Decimal } from '../../../../src/base/decimal.js';
import { deepFreeze } from '../../../../src/base/freeze.js';
import type { Config } from '../../../../src/model/config.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';

const project = projectsPerTest();

/** The sample with every kind of container the model has: compete's Sets, hours' Sets, alert and S3 blocks. */
const richConfig = `${sampleConfig.replace('backoffice: { type: file, path: quotes.json }', 'backoffice: { type: file, path: quotes.json }\n  bc: { type: bestchange, baseUrl: "http://127.0.0.1:9", retries: 0 }')}
  - { from: BTC, to: CASHRUB, cities: [MSK], hours: "Mon-Fri 09:00-18:00 UTC", compete: { place: 2, floor: 0.5%, ceiling: 3%, ignore: [Alpha, 17] } }
alerts:
  email: { host: smtp.example, from: ops@example.com, to: [owner@example.com] }
publish:
  s3: { bucket: rates-example }
`;

async function loaded(): Promise<Config> {
  const made = await project({ 'ratefile.config.yaml': richConfig });
  return loadConfig(made.configPath);
}

/** Every plain object, array, Map and Set reachable from `root` (Decimals and other class instances are not walked). */
function containers(root: unknown): object[] {
  const seen = new Set<object>();
  const pending = [root];
  while (pending.length > 0) {
    const item = pending.pop();
    if (typeof item !== 'object' || item === null || seen.has(item) || item instanceof Decimal) continue;
    seen.add(item);
    if (item instanceof Map) for (const [key, value] of item) pending.push(key, value);
    else if (item instanceof Set) pending.push(...item);
    else pending.push(...Object.values(item));
  }
  return [...seen];
}

/** The TypeError a write into the frozen config throws (test modules are strict, as src's are). */
const refused = expect.objectContaining({ name: 'TypeError' });

describe('the loaded config is frozen deeply', () => {
  it('freezes every object, array, Map and Set in it', async () => {
    const config = await loaded();
    const all = containers(config);
    expect(all.filter((item) => item instanceof Map).length).toBeGreaterThan(0);
    expect(all.filter((item) => item instanceof Set).length).toBeGreaterThanOrEqual(3); // compete's two, the hours' days
    expect(all.filter((item) => !Object.isFrozen(item))).toEqual([]);
  });

  it('refuses writes to a direction, its lists, its currency, the config’s lists and blocks', async () => {
    const config = await loaded();
    const direction = config.directions[0]!;
    // @ts-expect-error the model is readonly
    expect(() => (direction.margin = new Decimal('0.5'))).toThrow(refused);
    // @ts-expect-error the model is readonly
    expect(() => config.directions.push(direction)).toThrow(refused);
    // @ts-expect-error the model is readonly
    expect(() => direction.tags.push('extra')).toThrow(refused);
    // @ts-expect-error the model is readonly
    expect(() => (direction.to.reserve = new Decimal(1))).toThrow(refused);
    // @ts-expect-error the model is readonly
    expect(() => (config.exports[0]!.aliases.BTC = 'XBT')).toThrow(refused);
    expect(() => (config.alerts!.email!.to as string[]).push('intruder@example.com')).toThrow(refused);
    expect(() => ((config.publish.s3 as { bucket: string }).bucket = 'other')).toThrow(refused);
    expect(() => ((config.sources[0]!.options as Record<string, unknown>).path = 'elsewhere.json')).toThrow(refused);
    expect(config.directions[0]!.margin.toString()).toBe('0.015');
    expect(config.directions).toHaveLength(5);
  });

  it('refuses set, delete and clear on its Maps and add on its Sets, and they still read', async () => {
    const config = await loaded();
    const currencies = config.currencies as Map<string, unknown>;
    expect(() => currencies.set('EUR', {})).toThrow(refused);
    expect(() => currencies.delete('BTC')).toThrow(refused);
    expect(() => currencies.clear()).toThrow(refused);
    expect(config.currencies.get('BTC')?.code).toBe('BTC');
    expect(config.currencies.size).toBe(4);
    const competing = config.directions.find((d) => d.compete)!;
    expect(() => (competing.compete!.ignoreNames as Set<string>).add('beta')).toThrow(refused);
    expect(() => (competing.compete!.ignoreIds as Set<number>).delete(17)).toThrow(refused);
    expect(() => (competing.hours![0]!.days as Set<number>).add(6)).toThrow(refused);
    expect(competing.compete!.ignoreNames.has('alpha')).toBe(true);
    expect(competing.hours![0]!.days.has(1)).toBe(true);
  });

  it('leaves Decimal instances alone and costs each shared object once', () => {
    const price = new Decimal('1.5');
    const shared = { price };
    const frozen = deepFreeze({ a: shared, b: shared, list: [shared, shared] });
    expect(Object.isFrozen(frozen.a) && Object.isFrozen(frozen.list)).toBe(true);
    expect(Object.isFrozen(price)).toBe(false);
    expect(price.plus(1).toString()).toBe('2.5');
  });

  it('a reload after an edit returns a new config, frozen as well', async () => {
    const made = await project({ 'ratefile.config.yaml': richConfig });
    const reload = configReloader(made.configPath, () => loadConfig(made.configPath), {
      now: () => new Date(Date.now() + 60_000),
      settleMs: 0,
      warn: () => undefined,
    });
    const first = await reload();
    await made.write('ratefile.config.yaml', richConfig.replace('margin: 1.5%', 'margin: 2%'));
    const second = await reload();
    expect(second).not.toBe(first);
    expect(second.directions[0]!.margin.toString()).toBe('0.02');
    expect(containers(second).filter((item) => !Object.isFrozen(item))).toEqual([]);
  });
});
