// The service's config reloader: the same config while its file and templates are unchanged, a fresh one after any edit.
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/load.js';
import { configReloader } from '../../src/config/reload.js';
import { isRatefileError } from '../../src/errors.js';
import type { Config } from '../../src/model.js';
import { projectsPerTest, sampleConfig, sampleTemplates, type Project } from '../support/project.js';

const project = projectsPerTest();

/** A reloader over `dir`'s config that counts how often it really loads. */
function counted(dir: Project): { reload: () => Promise<Config>; loads: () => number } {
  let loads = 0;
  const reload = configReloader(dir.configPath, () => {
    loads += 1;
    return loadConfig(dir.configPath);
  });
  return { reload, loads: () => loads };
}

describe('configReloader', () => {
  it('loads twice (the first sight of the templates folder is not trusted), then keeps the config while nothing changed', async () => {
    const dir = await project();
    const { reload, loads } = counted(dir);
    const first = await reload();
    const second = await reload();
    expect(loads()).toBe(2);
    expect(second).not.toBe(first);
    for (let i = 0; i < 5; i++) expect(await reload()).toBe(second);
    expect(loads()).toBe(2);
  });

  it('loads again after the config file is edited, even to text of the same length', async () => {
    const dir = await project();
    const { reload, loads } = counted(dir);
    await reload();
    const kept = await reload();
    const edited = sampleConfig.replace('margin: 1.5%', 'margin: 2.5%');
    expect(edited).not.toBe(sampleConfig);
    expect(edited.length).toBe(sampleConfig.length);
    await dir.write('ratefile.config.yaml', edited);
    const fresh = await reload();
    expect(fresh).not.toBe(kept);
    expect(loads()).toBe(3);
    expect(fresh.directions.map((d) => d.margin.toString())).not.toEqual(kept.directions.map((d) => d.margin.toString()));
  });

  it('loads again after a template is edited, added or removed', async () => {
    const dir = await project();
    const { reload } = counted(dir);
    await reload();
    let kept = await reload();
    await dir.write('templates/affiliatefile.yaml', sampleTemplates['affiliatefile.yaml']!.replace('0.5%', '0.7%'));
    let fresh = await reload();
    expect(fresh).not.toBe(kept);
    expect(fresh.exports.find((e) => e.name === 'affiliatefile')?.markup.toString()).toBe('0.007');

    kept = await reload();
    expect(await reload()).toBe(kept);
    await dir.write('templates/extra.yaml', 'description: one more\n');
    fresh = await reload();
    expect(fresh.exports.map((e) => e.name)).toContain('extra');

    kept = await reload();
    await rm(join(dir.dir, 'templates', 'extra.yaml'));
    fresh = await reload();
    expect(fresh).not.toBe(kept);
    expect(fresh.exports.map((e) => e.name)).not.toContain('extra');
  });

  it('never keeps a config that failed to load: the next call tries again and reports it again', async () => {
    const dir = await project();
    const { reload, loads } = counted(dir);
    await reload();
    await reload();
    await dir.write('ratefile.config.yaml', `${sampleConfig}unknownKey: 1\n`);
    for (let i = 0; i < 2; i++) {
      const failure = await reload().catch((error: unknown) => error);
      expect(isRatefileError(failure, 'E_CONFIG')).toBe(true);
    }
    expect(loads()).toBe(4);
    await dir.write('ratefile.config.yaml', sampleConfig);
    expect((await reload()).directions.length).toBeGreaterThan(0);
  });
});
