// The docs' examples are what the program does: the usage error docs/commands.md shows, the tiers docs/configuration.md
// gives (loaded on directions from and not from RUB), docs/operations.md's commands as an installed ratefile runs
// them, and what docs/exports.md says of the templates `ratefile init` writes.
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { starterTemplates } from '../../../src/commands/starter.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { repoRoot } from '../../support/process.js';
import { projectsPerTest, sampleConfig } from '../../support/project.js';
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
});
