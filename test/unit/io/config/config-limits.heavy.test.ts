// Configs built to exhaust ratefile: alias bombs, tens of thousands of unknown keys, numbers of a million digits.
// Each is a config error with a file and a line, reported in time linear in the file, and nothing is written.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { readYamlFile } from '../../../../src/base/config/yaml.js';
import { checkDecimalLength, MAX_FRACTION_DIGITS, MAX_INTEGER_DIGITS } from '../../../../src/base/decimal.js';
import { RatefileError } from '../../../../src/base/errors.js';
import { runRatefile } from '../../../support/run-cli.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';

const project = projectsPerTest();

/** Billion laughs: `levels` anchors, each a list of ten aliases of the one before (10^levels values), from `line`. */
function aliasBomb(levels: number, indent = ''): string {
  let text = `${indent}lol0: &lol0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n`;
  for (let level = 1; level <= levels; level++) {
    text += `${indent}lol${level}: &lol${level} [${Array.from({ length: 10 }, () => `*lol${level - 1}`).join(', ')}]\n`;
  }
  return text;
}

/** 1-based line of the first line of `text` that contains `part`. */
const lineOf = (text: string, part: string) => text.split('\n').findIndex((line) => line.includes(part)) + 1;

describe('YAML alias bombs', () => {
  const bombed = `${sampleConfig}${aliasBomb(9)}`;

  it('in the config: a config error naming the file and the line of the alias, exit 2, nothing written', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': bombed });
    const { code, stderr } = await runRatefile(['build'], dir);
    expect(stderr).not.toContain('unexpected error');
    expect(stderr).toMatch(
      /^ratefile: ratefile\.config\.yaml: not valid YAML\n {2}line (\d+), column \d+: alias \*lol\d /,
    );
    const line = Number(/line (\d+)/.exec(stderr)?.[1]);
    expect(line).toBeGreaterThanOrEqual(lineOf(bombed, 'lol1:'));
    expect(line).toBeLessThanOrEqual(lineOf(bombed, 'lol9:'));
    expect(code).toBe(2);
    expect(existsSync(join(dir, 'public'))).toBe(false);
  });

  it('in a template: reported with the template file and line among the config problems, exit 2', async () => {
    const template = `${aliasBomb(9)}description: *lol9\n`;
    const { dir } = await project({ 'templates/parserfile.yaml': template });
    const { code, stderr } = await runRatefile(['build'], dir);
    expect(stderr).not.toContain('unexpected error');
    expect(stderr).toMatch(/^ {2}templates\/parserfile\.yaml: not valid YAML: line \d+, column \d+: alias \*lol\d /m);
    expect(code).toBe(2);
    expect(existsSync(join(dir, 'public'))).toBe(false);
  });

  it('both readers refuse it, even where nothing else is wrong with the file: js-yaml (the fast path) and yaml (a text with "!")', async () => {
    const { dir } = await project();
    for (const [name, text] of [
      ['fast.yaml', aliasBomb(9)],
      ['tagged.yaml', `# hello!\n${aliasBomb(9)}`],
    ] as const) {
      await writeFile(join(dir, name), text);
      const reading = readYamlFile(join(dir, name), name);
      await expect(reading).rejects.toBeInstanceOf(RatefileError);
      await expect(reading).rejects.toMatchObject({ code: 'E_CONFIG', message: `${name}: not valid YAML` });
      const error = (await reading.catch((caught: unknown) => caught)) as RatefileError;
      expect(error.details).toHaveLength(1);
      expect(error.details[0]).toMatch(
        /^line \d+, column \d+: alias \*lol\d \(\d+ values\) takes what aliases repeat past \d+/,
      );
    }
  });

  it('both readers count alike: aliases may add as many values as the file holds plus 100,000, and not one more', async () => {
    const { dir } = await project();
    // 1,003 values of its own (the top mapping, the anchored list of 1,000 and its own, the list of uses);
    // each use adds 1,001: 100 uses add 100,100 (allowed, at most 101,003), 101 add 101,101.
    const file = (uses: number) =>
      `a: &a [${Array(1000).fill('x').join(', ')}]\nb: [${Array(uses).fill('*a').join(', ')}]\n`;
    for (const [uses, refused] of [
      [100, false],
      [101, true],
    ] as const) {
      for (const prefix of ['', '# hello!\n']) {
        const name = `uses-${uses}-${prefix === '' ? 'fast' : 'tagged'}.yaml`;
        await writeFile(join(dir, name), prefix + file(uses));
        const outcome = await readYamlFile(join(dir, name), name).then(
          () => 'read',
          (error: unknown) => (error instanceof RatefileError ? error.details.join('; ') : String(error)),
        );
        if (refused)
          expect(outcome, name).toMatch(
            /^line \d+, column \d+: alias \*a \(1001 values\) takes what aliases repeat past 101003, the most for this file \(its own 1003 values plus 100000\)$/,
          );
        else expect(outcome, name).toBe('read');
      }
    }
  });

  it('an alias inside the value it names is refused with its line, by both readers', async () => {
    const { dir } = await project();
    for (const [name, text] of [
      ['fast.yaml', 'a: 1\nloop: &loop [1, *loop]\n'],
      ['tagged.yaml', '# hello!\na: 1\nloop: &loop [1, *loop]\n'],
    ] as const) {
      await writeFile(join(dir, name), text);
      const error = (await readYamlFile(join(dir, name), name).catch((caught: unknown) => caught)) as RatefileError;
      expect(error).toBeInstanceOf(RatefileError);
      expect(error.details).toEqual([
        `line ${lineOf(text, 'loop:')}, column 17: alias *loop is inside the value it names`,
      ]);
    }
  });

  it('ordinary anchors are no bomb: one anchor used by 150 directions reads, and a problem in such a file still gets its line', async () => {
    const many = Array.from(
      { length: 150 },
      (_, index) => `  - { from: BTC, to: SBERRUB, tags: *tags${index === 0 ? ', reserve: "x"' : ''} }`,
    ).join('\n');
    const config = sampleConfig
      .replace('defaults:\n', 'shared:\n  tags: &tags [ref, extra]\ndefaults:\n')
      .replace(/directions:\n[^]*$/, `directions:\n${many}\n`);
    const { dir } = await project({ 'ratefile.config.yaml': config });
    const error = (await loadConfig('ratefile.config.yaml', dir).catch((caught: unknown) => caught)) as RatefileError;
    expect(error).toBeInstanceOf(RatefileError);
    const line = lineOf(config, 'reserve: "x"');
    // Two schema problems, then 149 directions that repeat the first.
    expect(error.message).toBe('ratefile.config.yaml: 151 problems');
    expect(error.details).toEqual(
      expect.arrayContaining([
        // An unknown key is placed at its value, the mapping on the next line.
        `shared: unknown key (line ${lineOf(config, 'shared:') + 1})`,
        `directions[0].reserve: expected a non-negative decimal like "12.5", got "x" (line ${line})`,
        `directions[1]: duplicate direction BTC → SBERRUB, already at directions[0] (line ${line + 1})`,
      ]),
    );
  });
});

describe('many unknown keys', () => {
  const unknownKeys = (count: number) => Array.from({ length: count }, (_, index) => `key${index}: 1\n`).join('');

  it('100,000 of them are reported in time linear in the file (the start commit needed minutes), and the list is capped', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': sampleConfig + unknownKeys(100_000) });
    const error = (await loadConfig('ratefile.config.yaml', dir).catch((caught: unknown) => caught)) as RatefileError;
    expect(error).toBeInstanceOf(RatefileError);
    expect(error.message).toBe('ratefile.config.yaml: 100000 problems');
    const first = lineOf(sampleConfig, 'directions:') + 4;
    expect(error.details.slice(0, 2)).toEqual([
      `key0: unknown key (line ${first})`,
      `key1: unknown key (line ${first + 1})`,
    ]);
    expect(error.details).toHaveLength(101);
    expect(error.details[100]).toBe('… and 99900 more problems');
  });

  it('the printed list stops after 100 problems with a count of the rest', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': sampleConfig + unknownKeys(150) });
    const { code, stderr } = await runRatefile(['build'], dir);
    const lines = stderr.trimEnd().split('\n');
    expect(lines[0]).toBe('ratefile: ratefile.config.yaml: 150 problems');
    expect(lines.slice(1, 101).every((line) => /^ {2}key\d+: unknown key \(line \d+\)$/.test(line))).toBe(true);
    expect(lines.slice(101)).toEqual(['  … and 50 more problems']);
    expect(code).toBe(2);
  });
});

describe('many YAML errors', () => {
  it('150 repeated keys: the first 100 with their lines, then a count of the rest', async () => {
    const { dir } = await project({ 'ratefile.config.yaml': sampleConfig + 'twice: 1\n'.repeat(151) });
    const error = (await loadConfig('ratefile.config.yaml', dir).catch((caught: unknown) => caught)) as RatefileError;
    expect(error).toBeInstanceOf(RatefileError);
    expect(error.message).toBe('ratefile.config.yaml: not valid YAML');
    const first = sampleConfig.split('\n').length + 1;
    // The key named, and where it first was.
    expect(error.details[0]).toBe(`line ${first}, column 1: duplicate key "twice", first on line ${first - 1}`);
    expect(error.details[99]).toBe(`line ${first + 99}, column 1: duplicate key "twice", first on line ${first - 1}`);
    expect(error.details.slice(100)).toEqual(['… and 50 more problems']);
  });
});

describe('decimal length', () => {
  it('checkDecimalLength allows 30 digits before the point and 18 after, and says what it got beyond that', () => {
    expect([MAX_INTEGER_DIGITS, MAX_FRACTION_DIGITS]).toEqual([30, 18]);
    expect(checkDecimalLength(`${'9'.repeat(30)}.${'9'.repeat(18)}`)).toBeUndefined();
    expect(checkDecimalLength(`-${'9'.repeat(30)}.5%`)).toBeUndefined();
    expect(checkDecimalLength(`${'1'.repeat(31)} RUB`)).toBe(
      'expected at most 30 digits before the decimal point and 18 after, got 31 before and 0 after',
    );
    expect(checkDecimalLength(`0.${'0'.repeat(18)}1`)).toBe(
      'expected at most 30 digits before the decimal point and 18 after, got 1 before and 19 after',
    );
  });

  const long = '1'.repeat(1_000_000);
  const tooLong = 'expected at most 30 digits before the decimal point and 18 after, got 1000000 before and 0 after';

  it.each([
    ['currencies.BTC.reserve', 'BTC: { reserve: "3" }', `BTC: { reserve: "${long}" }`],
    ['currencies.BTC.reserve', 'BTC: { reserve: "3" }', `BTC: { reserve: ${long.slice(0, 40)} }`],
    ['defaults.margin', 'margin: 1.5%', `margin: ${long}%`],
    ['directions[0].min', 'min: 0.001', `min: "${long}"`],
    ['directions[0].max', 'max: "500000 RUB"', `max: "${long} RUB"`],
    ['directions[1].fromfee', 'fromfee: "1%"', `fromfee: "${long}%"`],
    [
      'directions[2]',
      '{ from: USDTTRC20, to: CASHRUB,',
      `{ from: USDTTRC20, to: CASHRUB, reserve: "0.${long}", tofee: "${long} USD", minfee: "${long}", floating: "${long}%",`,
    ],
    ['sources.backoffice.refresh', 'path: quotes.json }', `path: quotes.json, refresh: "${long}s" }`],
  ])(
    '%s: a decimal of a million digits is refused with its path and line, without echoing it',
    async (path, from, to) => {
      const config = sampleConfig.replace(from, to);
      expect(config).not.toBe(sampleConfig);
      const { dir } = await project({ 'ratefile.config.yaml': `${config}guards: { maxJump: "${long}%" }\n` });
      const { code, stderr } = await runRatefile(['build'], dir);
      expect(code).toBe(2);
      expect(stderr.length).toBeLessThan(5_000);
      const line = lineOf(config, to.slice(0, 30));
      if (path === 'directions[2]') {
        for (const key of ['reserve', 'tofee', 'minfee', 'floating']) {
          const got = key === 'reserve' ? 'got 1 before and 1000000 after' : 'got 1000000 before and 0 after';
          expect(stderr).toContain(
            `  directions[2].${key}: ${tooLong.replace('got 1000000 before and 0 after', got)} (line ${line})\n`,
          );
        }
      } else if (to.includes(`reserve: ${long.slice(0, 40)}`)) {
        // A YAML number this long is no longer exact: refused as a number, with its path.
        expect(stderr).toMatch(
          new RegExp(
            `\\n {2}${path.replace(/[.[\]]/g, '\\$&')}: expected a non-negative decimal like "12\\.5", got 1\\.\\d+e\\+39 \\(line ${line}\\)\\n`,
          ),
        );
      } else {
        expect(stderr).toContain(`  ${path}: ${tooLong} (line ${line})\n`);
      }
      expect(stderr).toContain(`  guards.maxJump: ${tooLong} (line ${config.split('\n').length})\n`);
      expect(existsSync(join(dir, 'public'))).toBe(false);
    },
  );

  it('in a template: a markup of a million digits', async () => {
    const { dir } = await project({ 'templates/affiliatefile.yaml': `markup: "${long}%"\n` });
    const { code, stderr } = await runRatefile(['build'], dir);
    expect(stderr).toContain(`  templates/affiliatefile.yaml: markup: ${tooLong} (line 1)\n`);
    expect(stderr.length).toBeLessThan(5_000);
    expect(code).toBe(2);
  });
});
