// A first rate is bounded too (issue 44, item 3): with no last published rate in guard.json, the rates ratefile's own
// export files publish (classic XML, EREF, JSON; aliases undone, the markup taken off) are the last published ones,
// read back bounded; a pair found nowhere is published. On real files, through runCycle.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { Decimal } from '../../../../src/base/decimal.js';
import { runCycle } from '../../../../src/io/build/cycle.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { maxExportReadBytes, readLastExports } from '../../../../src/io/state/last-exports.js';
import type { GuardState } from '../../../../src/pure/guards/guards.js';
import { projectsPerTest, sampleConfig, writeSampleQuotes, type Project } from '../../../support/project.js';

const t0 = new Date('2026-11-21T12:00:00Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);
const project = projectsPerTest();

async function cycle(made: Project, now: Date, factor: string) {
  await writeSampleQuotes(made, now, factor);
  return runCycle(await loadConfig(made.configPath), join(made.dir, 'public'), { now: () => now });
}

const guardOf = async (made: Project) =>
  JSON.parse(await readFile(join(made.dir, '.ratefile', 'guard.json'), 'utf8')) as GuardState;

/** |a ÷ b − 1|: how far a rate read back from a file is from the one the guard kept. */
const off = (a: string, b: string) => new Decimal(a).div(b).minus(1).abs().toNumber();

describe('the rates the export files publish, read back', () => {
  it('every direction, from the export without a markup first, within the rounding of its published form', async () => {
    const made = await project();
    const { build } = await cycle(made, at(0), '1');
    const config = await loadConfig(made.configPath);
    const read = await readLastExports(config, join(made.dir, 'public'));
    expect([...read.keys()].sort()).toEqual(Object.keys(build.report.guardState.published).sort());
    for (const [id, last] of read) {
      expect(last.file).toBe('parserfile.xml');
      expect(off(last.rate, build.report.guardState.published[id]!.rate), id).toBeLessThan(0.01);
    }
  });

  it('aliases are undone and the markup taken off: the same rates from reffile.xml or affiliatefile.xml alone', async () => {
    const made = await project();
    const { build } = await cycle(made, at(0), '1');
    const config = await loadConfig(made.configPath);
    const out = join(made.dir, 'public');
    await rm(join(out, 'parserfile.xml'));
    const withoutPrimary = await readLastExports(config, out);
    // reffile.xml publishes USDTTRC20 as USDTTRC and has the ref directions; affiliatefile.xml the rest, at 0.5%.
    expect(withoutPrimary.get('BTC>USDTTRC20')?.file).toBe('reffile.xml');
    expect(withoutPrimary.get('SBERRUB>USDTTRC20')?.file).toBe('affiliatefile.xml');
    await rm(join(out, 'reffile.xml'));
    for (const [id, last] of await readLastExports(config, out)) {
      expect(last.file).toBe('affiliatefile.xml');
      expect(off(last.rate, build.report.guardState.published[id]!.rate), id).toBeLessThan(0.01);
    }
  });

  it('a JSON export is read too; a broken, oversized or missing file bounds nothing', async () => {
    const made = await project({ 'templates/rates.yaml': 'format: json\naliases: { USDTTRC20: USDTTRC }\n' });
    await cycle(made, at(0), '1');
    const config = await loadConfig(made.configPath);
    const out = join(made.dir, 'public');
    for (const file of ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml']) await rm(join(out, file));
    const json = await readLastExports(config, out);
    expect([...json.values()].map((last) => last.file)).toEqual([
      'rates.json',
      'rates.json',
      'rates.json',
      'rates.json',
    ]);
    await writeFile(join(out, 'rates.json'), '{ "exchange": ');
    expect((await readLastExports(config, out)).size).toBe(0);
    await writeFile(join(out, 'rates.json'), Buffer.alloc(maxExportReadBytes + 1, ' '));
    expect((await readLastExports(config, out)).size).toBe(0);
    await rm(join(out, 'rates.json'));
    await mkdir(join(out, 'rates.json'));
    expect((await readLastExports(config, out)).size).toBe(0);
  });
});

describe('a first rate bounded by them', () => {
  it('a lost state folder: a rate within maxJump of the files is published, one past the hard bound is held', async () => {
    const made = await project();
    await cycle(made, at(0), '1');
    await rm(join(made.dir, '.ratefile'), { recursive: true });
    const small = await cycle(made, at(30), '1.05');
    expect(small.build.report.withheld).toEqual([]);

    await rm(join(made.dir, '.ratefile'), { recursive: true });
    const big = await cycle(made, at(60), '40');
    expect(big.build.report.withheld.map((w) => [w.direction.id, w.kind, w.jump?.hard])).toEqual([
      ['BTC>SBERRUB', 'jump', true],
      ['BTC>USDTTRC20', 'jump', true],
    ]);
    expect(big.build.report.withheld[1]?.reason).toBe(
      'rate moved ×38.1, +3710% from the last published 100334.97 (parserfile.xml) to 3822284.62, from backoffice: past the hard bound ×1.3 or ÷1.3 (guards.hardJump 30%), it is published only by ratefile accept BTC USDTTRC20',
    );
    // Kept in guard.json, so the build after (whose files no longer have them) measures from them too.
    const kept = (await guardOf(made)).published['BTC>SBERRUB'];
    expect(kept).toMatchObject({ file: 'parserfile.xml' });
    expect((await cycle(made, at(90), '40')).build.report.withheld).toHaveLength(2);
    expect((await guardOf(made)).published['BTC>SBERRUB']).toEqual(kept);
  });

  it('a direction no export file has is published as a first rate', async () => {
    const made = await project();
    await cycle(made, at(0), '1');
    await rm(join(made.dir, '.ratefile'), { recursive: true });
    await made.write(
      'ratefile.config.yaml',
      sampleConfig.replace('  - { from: SBERRUB,', '  - { from: USDTTRC20, to: SBERRUB }\n  - { from: SBERRUB,'),
    );
    const next = await cycle(made, at(30), '40');
    expect(next.build.report.priced.map((p) => p.direction.id)).toContain('USDTTRC20>SBERRUB');
    expect(next.build.report.withheld.map((w) => w.direction.id)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20']);
  });
});
