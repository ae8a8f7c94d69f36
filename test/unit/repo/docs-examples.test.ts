// The docs' examples are what the program does: the usage error docs/commands.md shows, the tiers docs/configuration.md
// gives (loaded on directions from and not from RUB), docs/operations.md's commands as an installed ratefile runs
// them, and what docs/exports.md says of the templates `ratefile init` writes.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { starterTemplates } from '../../../src/commands/starter.js';
import { build } from '../../../src/io/build/build.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { commonOptions } from '../../../src/pure/sources/options.js';
import { repoRoot } from '../../support/process.js';
import { projectsPerTest, sampleConfig, sampleQuotes } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';

const read = (path: string) => readFileSync(join(repoRoot, path), 'utf8');
const project = projectsPerTest();

describe('the docs show what the program does', () => {
  it("docs/commands.md's usage error is the program's, line for line", async () => {
    const block = /```text\n {2}\$ ratefile (.+)\n((?: {2}.*\n)+?) {2}```/.exec(read('docs/commands.md'));
    expect(block).not.toBeNull();
    const [, command, shown] = block!;
    const result = await runRatefile(command!.split(' '), tmpdir());
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(shown!.replace(/^ {2}/gm, ''));
  });

  it("docs/configuration.md's tiers example loads on a direction from RUB and on one from BTC", async () => {
    const row = read('docs/configuration.md')
      .split('\n')
      .find((line) => line.startsWith('| `tiers` |'));
    const tiers = /`(\[\{ from: .*?\}\])`/.exec(row ?? '')?.[1];
    expect(tiers).toBeDefined();
    // The sample's first direction is from BTC, its second from SBERRUB.
    const config = sampleConfig
      .replace('{ from: BTC, to: [SBERRUB, USDTTRC20],', `{ from: BTC, to: [SBERRUB, USDTTRC20], tiers: ${tiers},`)
      .replace('{ from: SBERRUB, to: USDTTRC20,', `{ from: SBERRUB, to: USDTTRC20, tiers: ${tiers},`);
    expect(config).toContain(`{ from: SBERRUB, to: USDTTRC20, tiers: ${tiers}`);
    const made = await project({ 'ratefile.config.yaml': config });
    const loaded = await loadConfig(made.configPath);
    expect(loaded.directions.filter((d) => d.tiers !== undefined).map((d) => d.from.code)).toEqual([
      'BTC',
      'BTC',
      'SBERRUB',
    ]);
  });

  it("docs/operations.md's commands run as an installed ratefile runs (no npx, no macOS `open`)", () => {
    const blocks = [...read('docs/operations.md').matchAll(/```sh\n([^]*?)```/g)].map((match) => match[1]!);
    const lines = blocks.flatMap((block) => block.split('\n')).filter((line) => line.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => /^(npx|open) /.test(line))).toEqual([]);
  });

  it("docs/exports.md says what `ratefile init`'s reffile does: the aliases commented out", () => {
    const reffile = load(starterTemplates['reffile.yaml']!) as Record<string, unknown>;
    expect(reffile.aliases).toBeUndefined();
    expect(starterTemplates['reffile.yaml']).toMatch(/^# aliases:\n# {3}USDTTRC20: USDTTRC$/m);
    expect(read('docs/exports.md')).toMatch(/`reffile\.yaml` \(directions tagged\s+`ref`; aliases .* commented out/);
    expect((load(read('templates/reffile.yaml')) as { aliases?: unknown }).aliases).toEqual({
      USDTTRC20: 'USDTTRC',
      USDTERC20: 'USDTERC',
    });
  });

  it('maxAge is one rule, in the code and in both docs: a quote older than it is not used, one exactly that old is', async () => {
    const now = new Date('2026-11-26T12:00:00.000Z');
    const quotesAged = (ms: number) =>
      JSON.stringify({
        quotes: sampleQuotes.quotes.map((quote) => ({ ...quote, time: new Date(now.getTime() - ms).toISOString() })),
      });
    const config = sampleConfig.replace('path: quotes.json }', 'path: quotes.json, maxAge: 60s }');
    const published = async (ms: number) => {
      const made = await project({ 'ratefile.config.yaml': config, 'quotes.json': quotesAged(ms) });
      const { report } = await build(await loadConfig(made.configPath), { now: () => now });
      return report.directions.published.length;
    };
    expect(await published(60_000)).toBe(4);
    expect(await published(60_001)).toBe(0);
    const described = commonOptions.maxAge.description ?? '';
    expect(described).toMatch(/^Quotes older than this are not used; one exactly this old still is/);
    expect(read('docs/config-reference.md')).toContain(described);
    const formulas = read('docs/formulas.md');
    expect(formulas).not.toMatch(/younger than (its own source's )?`maxAge`/);
    expect(formulas).toContain("no older than its own source's `maxAge`");
  });
});
