// The service's config reloader: the same config while its file and templates are unchanged, a fresh one after any edit.
import { open, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { configReloader } from '../../../../src/io/config/reload.js';
import { isRatefileError } from '../../../../src/base/errors.js';
import type { Config } from '../../../../src/model/config.js';
import { projectsPerTest, sampleConfig, sampleTemplates, type Project } from '../../../support/project.js';

const project = projectsPerTest();

/**
 * A reloader over `dir`'s config that counts how often it really loads. Its clock runs `ahead` ms ahead of the
 * real one (file change times are real): by default a minute, so every change has settled.
 */
function counted(
  dir: Project,
  ahead = 60_000,
  warnings: string[] = [],
): { reload: () => Promise<Config>; loads: () => number; ahead: (ms: number) => void } {
  let loads = 0;
  let offset = ahead;
  const reload = configReloader(
    dir.configPath,
    () => {
      loads += 1;
      return loadConfig(dir.configPath);
    },
    { now: () => new Date(Date.now() + offset), settleMs: 2_000, warn: (line) => warnings.push(line) },
  );
  return { reload, loads: () => loads, ahead: (ms) => (offset = ms) };
}

/** Write `path` in place the way an editor saving without a temporary file does: truncate, then write `text`. */
async function writeInPlace(path: string, text: string): Promise<void> {
  const handle = await open(path, 'w');
  try {
    await handle.write(text);
  } finally {
    await handle.close();
  }
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
    expect(fresh.directions.map((d) => d.margin.toString())).not.toEqual(
      kept.directions.map((d) => d.margin.toString()),
    );
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

describe('configReloader while a config is being written (saved in place, in parts)', () => {
  /** The sample cut after its first direction: valid YAML and a valid config, with 2 of its 4 directions. */
  const half = sampleConfig.slice(0, sampleConfig.indexOf('  - { from: SBERRUB'));

  it('keeps the last config while the change is younger than the settle interval, then adopts the whole text', async () => {
    const dir = await project();
    const { reload, loads, ahead } = counted(dir);
    await reload();
    const kept = await reload();
    expect(kept.directions).toHaveLength(4);
    expect(loads()).toBe(2);

    ahead(0);
    await writeInPlace(dir.configPath, half);
    expect(await reload()).toBe(kept);
    ahead(1_500);
    expect(await reload()).toBe(kept);
    // Never parsed while changing, so the half text was never a candidate.
    expect(loads()).toBe(2);

    const whole = sampleConfig.replace('margin: 1.5%', 'margin: 2.5%');
    await writeInPlace(dir.configPath, whole);
    ahead(1_500);
    expect(await reload()).toBe(kept);
    ahead(2_100);
    const fresh = await reload();
    expect(fresh).not.toBe(kept);
    expect(fresh.directions).toHaveLength(4);
    expect(fresh.directions[0]?.margin.toString()).toBe('0.025');
    expect(loads()).toBe(3);
  });

  it('a text that fails to parse while still changing is not reported; once settled it is', async () => {
    const dir = await project();
    const { reload, ahead } = counted(dir);
    await reload();
    const kept = await reload();
    ahead(0);
    await writeInPlace(dir.configPath, 'sources:\n  backoffice: { type: fi');
    for (let i = 0; i < 3; i++) expect(await reload()).toBe(kept);
    ahead(2_100);
    const failure = await reload().catch((error: unknown) => error);
    expect(isRatefileError(failure, 'E_CONFIG')).toBe(true);
  });

  it('a config file missing for a moment (an editor replacing it) is not reported until it has stayed missing', async () => {
    const dir = await project();
    const { reload, ahead } = counted(dir);
    await reload();
    const kept = await reload();
    await rm(dir.configPath);
    expect(await reload()).toBe(kept);
    expect(await reload()).toBe(kept);
    ahead(60_000 + 2_100);
    const failure = await reload().catch((error: unknown) => error);
    expect(isRatefileError(failure, 'E_CONFIG')).toBe(true);
    expect((failure as Error).message).toMatch(/file not found/);
  });

  it('keeps the last config, quietly, when the files change while being read; the next settled call reads them', async () => {
    const dir = await project();
    let edit: (() => Promise<void>) | undefined;
    const reload = configReloader(
      dir.configPath,
      async () => {
        const config = await loadConfig(dir.configPath);
        await edit?.();
        edit = undefined;
        return config;
      },
      { now: () => new Date(Date.now() + 60_000) },
    );
    await reload();
    const kept = await reload();
    await dir.write('ratefile.config.yaml', half);
    edit = () => dir.write('ratefile.config.yaml', sampleConfig.replace('margin: 1.5%', 'margin: 2.5%'));
    expect(await reload()).toBe(kept);
    const fresh = await reload();
    expect(fresh.directions).toHaveLength(4);
    expect(fresh.directions[0]?.margin.toString()).toBe('0.025');
  });

  it('warns when a reload cuts the directions by half or more, and adopts it', async () => {
    const dir = await project();
    const warnings: string[] = [];
    const { reload } = counted(dir, 60_000, warnings);
    await reload();
    await reload();
    await dir.write(
      'ratefile.config.yaml',
      sampleConfig.replace('  - { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash] }\n', ''),
    );
    expect((await reload()).directions).toHaveLength(3);
    await dir.write('ratefile.config.yaml', sampleConfig);
    expect((await reload()).directions).toHaveLength(4);
    expect(warnings).toEqual([]);
    await dir.write('ratefile.config.yaml', half);
    expect((await reload()).directions).toHaveLength(2);
    expect(warnings).toEqual([
      'config reloaded with 2 directions, 4 before: half or more are no longer published; if that was not meant, restore the config',
    ]);
  });
});
