// Bad input everywhere: a generated set of broken configs (mutations of the sample config: wrong types for
// every key, missing and unknown keys at every level, bad values of every kind, invalid YAML). Each one,
// run through `ratefile build` in-process, must name the path it broke, exit 2 and leave every file alone.
import { createHash } from 'node:crypto';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { isMap, isSeq, parseDocument } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { run, type CliDeps } from '../../../../src/cli.js';
import { makeProject, sampleConfig, type Project } from '../../../support/project.js';

type Path = (string | number)[];

interface Mutation {
  /** What was broken, for the test's name. */
  name: string;
  /** The config text after the mutation. */
  yaml: string;
  /**
   * A problem line must start with this path (`directions[0].margin`) and, for a value of the wrong type,
   * say what it got (`got true`); invalid YAML must name one of these lines.
   */
  expected: { path: string; got?: string } | { yamlLines: number[] };
}

/** `['directions', 0, 'margin']` → `directions[0].margin`, as problem lines spell paths. */
function pathText(path: Path): string {
  return path.map((key, index) => (typeof key === 'number' ? `[${key}]` : index === 0 ? key : `.${key}`)).join('');
}

/** The sample config with `value` at `path` (undefined: the key removed). */
function withValue(path: Path, value: unknown): string {
  const document = parseDocument(sampleConfig);
  if (value === undefined) document.deleteIn(path);
  else document.setIn(path, document.createNode(value));
  return String(document);
}

/** Every key and list position in the sample config, containers included, with its value. */
function samplePaths(): { path: Path; value: unknown }[] {
  const found: { path: Path; value: unknown }[] = [];
  const walk = (node: unknown, path: Path) => {
    if (isMap(node)) {
      for (const pair of node.items) {
        const key = (pair.key as { value?: unknown } | null)?.value;
        if (typeof key !== 'string') continue;
        found.push({ path: [...path, key], value: (pair.value as { toJSON?: () => unknown } | null)?.toJSON?.() });
        walk(pair.value, [...path, key]);
      }
    } else if (isSeq(node)) {
      node.items.forEach((item, index) => {
        found.push({ path: [...path, index], value: (item as { toJSON?: () => unknown } | null)?.toJSON?.() });
        walk(item, [...path, index]);
      });
    }
  };
  walk(parseDocument(sampleConfig).contents, []);
  return found;
}

function generate(): Mutation[] {
  const mutations: Mutation[] = [];
  const add = (name: string, path: Path, value: unknown, expectedPath: Path = path, extra: Partial<Mutation> = {}) =>
    mutations.push({
      name: `${name}: ${pathText(path)} = ${JSON.stringify(value) ?? '(removed)'}`,
      yaml: withValue(path, value),
      expected: { path: pathText(expectedPath) },
      ...extra,
    });

  // 1. Wrong types for every key and list item of the sample: a mapping, a boolean, null, a list of lists.
  // Scalars must be named in the message as what they are.
  const wrongTypes: [unknown, string | undefined][] = [
    [{ wrong: 1 }, undefined],
    [true, 'got true'],
    [null, 'got null'],
    [[[1]], 'got a list'],
  ];
  for (const { path } of samplePaths()) {
    for (const [value, got] of wrongTypes) {
      add('wrong type', path, value, path, { expected: { path: pathText(path), ...(got ? { got } : {}) } });
    }
  }

  // 2. Wrong types for the keys the sample leaves to their defaults, at the top level and in a direction.
  const topLevel = ['schedule', 'server', 'output', 'templates', 'manualHours', 'maintenance', 'state', 'guards'];
  for (const key of topLevel) for (const value of [{ wrong: 1 }, [[1]], 12.5]) add('wrong type', [key], value);
  for (const key of ['port', 'host'])
    for (const value of [{ wrong: 1 }, [[1]], true]) add('wrong type', ['server', key], value);
  for (const key of ['maxJump', 'confirmBuilds', 'confirmAnswers', 'hardJump'])
    for (const value of [{ wrong: 1 }, [[1]], true]) add('wrong type', ['guards', key], value);
  const directionKeys = [
    'margin',
    'chain',
    'reserve',
    'max',
    'params',
    'fromfee',
    'tofee',
    'minfee',
    'floating',
    'delay',
    'cities',
    'tags',
    'hours',
  ];
  for (const key of directionKeys)
    for (const value of [{ wrong: 1 }, [[1]], true]) add('wrong type', ['directions', 1, key], value);
  for (const key of directionKeys.filter((k) => !['chain', 'reserve', 'cities'].includes(k)))
    add('wrong type', ['defaults', key], { wrong: 1 });
  for (const key of ['asset', 'ratePrecision']) add('wrong type', ['currencies', 'BTC', key], { wrong: 1 });

  // 3. Missing required keys, and required collections left empty.
  for (const path of [
    ['sources'],
    ['currencies'],
    ['directions'],
    ['sources', 'backoffice', 'type'],
    ['sources', 'backoffice', 'path'],
    ['currencies', 'BTC', 'reserve'],
    ['currencies', 'CASHRUB', 'reserve'],
  ] as Path[]) {
    add('missing', path, undefined);
  }
  for (const index of [0, 1, 2])
    for (const key of ['from', 'to']) add('missing', ['directions', index, key], undefined);
  add('missing margin (no default)', ['defaults', 'margin'], undefined, ['directions', 0, 'margin']);
  add('empty', ['sources'], {});
  add('empty', ['currencies'], {});
  add('empty', ['directions'], []);
  add('empty', ['directions', 2, 'cities'], []);
  add('empty', ['directions', 0, 'to'], []);

  // 4. Unknown keys at every level.
  const unknownAt: Path[] = [
    [],
    ['server'],
    ['guards'],
    ['sources', 'backoffice'],
    ['defaults'],
    ...['BTC', 'USDTTRC20', 'SBERRUB', 'CASHRUB'].map((code) => ['currencies', code]),
    ['directions', 0],
    ['directions', 1],
    ['directions', 2],
  ];
  for (const at of unknownAt) {
    for (const key of ['marign', 'extra_key']) {
      const yaml =
        at.length > 0 && (at[0] === 'server' || at[0] === 'guards')
          ? withValue(at, { [key]: 1 })
          : withValue([...at, key], 1);
      mutations.push({
        name: `unknown key ${pathText([...at, key])}`,
        yaml,
        expected: { path: pathText([...at, key]) },
      });
    }
  }

  // 5. Bad values, key by key.
  const bad: [Path, unknown[]][] = [
    [['schedule'], ['every minute', '* * *', '61 * * * * *', '* * * * * * *', '']],
    [
      ['server', 'port'],
      [-1, 70000, 1.5, '8080'],
    ],
    [['server', 'host'], ['']],
    [['output'], ['']],
    [['templates'], ['']],
    [['state'], ['public', 'public/state', '']],
    [['maintenance'], ['yes', 1]],
    [['manualHours'], ['always', [], 'Mon-Fri 09:00-21:00 Mars/Base']],
    [
      ['guards', 'maxJump'],
      ['abc', '150%', '10', 10],
    ],
    [
      ['guards', 'confirmBuilds'],
      [0, -1, 1.5, '3', 1001],
    ],
    [
      ['guards', 'confirmAnswers'],
      [0, -1, 1.5, '3', 1001],
    ],
    [
      ['guards', 'hardJump'],
      ['abc', '0%', '-5%', '100001%', 30, '10%', '5%'],
    ],
    [
      ['sources', 'backoffice', 'type'],
      ['nope', 'FILE'],
    ],
    [['sources', 'backoffice', 'path'], ['']],
    [
      ['sources', 'backoffice', 'maxAge'],
      ['5 minutes', -1, 'abc'],
    ],
    [['sources', 'backoffice', 'refresh'], ['often']],
    [
      ['currencies', 'BTC', 'reserve'],
      ['-1', '1e5', '1,5', 'abc', '', -3],
    ],
    [
      ['currencies', 'BTC', 'precision'],
      [-1, 19, 1.5, '8'],
    ],
    [
      ['currencies', 'USDTTRC20', 'ratePrecision'],
      [-1, 19],
    ],
    [
      ['currencies', 'SBERRUB', 'asset'],
      ['rub', 'R', 'RUB-1'],
    ],
    [
      ['defaults', 'margin'],
      ['abc', '150%', '-100%', '1.5', 1.5, '1,5%'],
    ],
    [
      ['defaults', 'min'],
      ['abc', '5 rub', '-1', '5 NOPE'],
    ],
    [
      ['defaults', 'params'],
      [['bogus'], 'manual'],
    ],
    [
      ['defaults', 'fromfee'],
      ['abc', '-1%', '1.5%%'],
    ],
    [['defaults', 'tofee'], ['2 usd']],
    [['defaults', 'minfee'], ['a lot']],
    [
      ['defaults', 'floating'],
      ['abc', -1, 'maybe%'],
    ],
    [
      ['defaults', 'delay'],
      [-1, 1.5, 'soon'],
    ],
    [
      ['defaults', 'tags'],
      [['Bad Tag'], ['-x'], 'ref'],
    ],
    [
      ['defaults', 'hours'],
      ['bad', 'Mon-Fri 25:00-26:00 UTC', '09:00-21:00 Mars/Base', '09:00-09:00 UTC', 'Xyz 09:00-10:00 UTC', []],
    ],
    [
      ['directions', 0, 'from'],
      ['btc', 5, ''],
    ],
    [
      ['directions', 1, 'margin'],
      ['abc', '100%'],
    ],
    [
      ['directions', 1, 'reserve'],
      ['abc', '-5'],
    ],
    [
      ['directions', 1, 'chain'],
      ['USDT/RUB * ', 'USDTRUB', [], ['USDTRUB'], ['usdt/rub']],
    ],
    [
      ['directions', 1, 'hours'],
      ['Mon-Fri 09:00-21:00', 'Fri 22:00-06:00 Nowhere/City', ['Mon 09:00-10:00 UTC', 'Tue 25:00-26:00 UTC']],
    ],
    [
      ['directions', 2, 'cities'],
      [['msk'], 'MSK', [5]],
    ],
    [
      ['directions', 0, 'max'],
      ['500000 RUBX', '500000RUB', 'lots'],
    ],
    [['directions', 1, 'params'], [['manual', 'nope']]],
    [['directions', 1, 'delay'], [-5]],
  ];
  for (const [path, values] of bad) for (const value of values) add('bad value', path, value);

  // Bad values whose problem is reported at a deeper or a shallower path than the key set.
  add('unknown currency', ['directions', 0, 'from'], 'ZZZ');
  add('unknown currency in a list', ['directions', 0, 'to', 1], 'NOPERUB');
  add('unknown currency', ['directions', 2, 'to'], 'CASHUSD');
  add(
    'hours list item',
    ['directions', 1, 'hours'],
    ['Mon 09:00-10:00 UTC', 'Tue 25:00-26:00 UTC'],
    ['directions', 1, 'hours', 1],
  );
  add('manualHours list item', ['manualHours'], ['Mon 09:00-10:00 UTC', 'never'], ['manualHours', 1]);
  add('same currency both ends', ['directions', 1, 'to'], 'SBERRUB', ['directions', 1]);
  add('duplicate direction', ['directions', 2], { from: 'SBERRUB', to: 'USDTTRC20' }, ['directions', 2]);
  add('duplicate within a list', ['directions', 0, 'to'], ['SBERRUB', 'SBERRUB'], ['directions', 0]);
  add('chain that does not continue', ['directions', 1, 'chain'], ['BTC/USDT']);
  add('chain that ends elsewhere', ['directions', 1, 'chain'], ['USDT/RUB', 'BTC/USDT']);
  add('chain on a list of currencies', ['directions', 0, 'chain'], ['BTC/USDT', 'USDT/RUB']);
  add('currency not on the monitors’ list without an asset', ['currencies', 'ZZZCOIN'], { reserve: '1' }, [
    'currencies',
    'ZZZCOIN',
    'asset',
  ]);
  add('source name not lower case', ['sources', 'Back Office'], { type: 'file', path: 'quotes.json' }, ['sources']);
  add('currency code not in capitals', ['currencies', 'btcx'], { reserve: '1', asset: 'BTC' }, ['currencies']);

  // 6. Invalid YAML: each names the line of the damage.
  const lines = sampleConfig.split('\n');
  const lineOf = (start: string) => lines.findIndex((line) => line.startsWith(start)) + 1;
  // An unclosed construct may be reported where the parser notices it: the line after.
  const raw = (name: string, from: string, to: string, line: number, extra: Partial<Mutation> = {}) => {
    if (!sampleConfig.includes(from)) throw new Error(`the sample config has no ${JSON.stringify(from)}`);
    mutations.push({
      name: `invalid YAML: ${name}`,
      yaml: sampleConfig.replace(from, to),
      expected: { yamlLines: [line, line + 1] },
      ...extra,
    });
  };
  raw('tab indentation', '  backoffice:', '\tbackoffice:', lineOf('  backoffice:'));
  raw('unclosed flow mapping', '  BTC: { reserve: "3" }', '  BTC: { reserve: "3"', lineOf('  BTC:'));
  raw('unclosed quote', '  SBERRUB: { reserve: "5000000" }', '  SBERRUB: { reserve: "5000000 }', lineOf('  SBERRUB:'));
  raw('duplicate key', 'defaults:\n', 'defaults: {}\ndefaults:\n', lineOf('defaults:') + 1);
  raw('nested compact mapping', '  margin: 1.5%', '  margin: 1.5%: 2%', lineOf('  margin:'));
  raw('undefined alias', '  margin: 1.5%', '  margin: *nothing', lineOf('  margin:'));
  raw('unclosed flow sequence', 'cities: [MSK, SPB]', 'cities: [MSK, SPB', lineOf('  - { from: USDTTRC20'));
  raw(
    'mis-indented key',
    'currencies:\n  BTC:',
    'currencies:\n  BTC: { reserve: "3" }\n    x: 1\n  BTCX:',
    lineOf('  BTC:') + 1,
  );
  raw('a stray closing bracket', 'defaults:\n', 'defaults: ]\n', lineOf('defaults:'));
  raw('a key without a colon', 'defaults:\n', 'defaults\n', lineOf('defaults'));
  return mutations;
}

const mutations = generate();

/** Every file under `dir` but the config, with a hash of its bytes: what must not change. */
async function snapshot(dir: string, config: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (folder: string): Promise<void> => {
    for (const entry of await readdir(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) await walk(path);
      else if (path !== config)
        files[relative(dir, path)] = createHash('sha1')
          .update(await readFile(path))
          .digest('hex');
    }
  };
  await walk(dir);
  return files;
}

let made: Project;
let before: Record<string, string>;
const deps = (): CliDeps & { out: () => string; err: () => string } => {
  let stdout = '';
  let stderr = '';
  return {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    cwd: made.dir,
    now: () => new Date('2026-11-21T12:00:30Z'),
    fetch: () => Promise.reject(new Error('offline')),
    waitForStop: () => Promise.reject(new Error('not expected')),
    out: () => stdout,
    err: () => stderr,
  };
};

beforeAll(async () => {
  made = await makeProject();
  // A first, good build: these are the files every broken config must leave alone.
  const first = deps();
  expect(await run(['node', 'ratefile', 'build'], first), first.err()).toBe(0);
  before = await snapshot(made.dir, made.configPath);
  expect(Object.keys(before)).toEqual(
    expect.arrayContaining([
      'public/parserfile.xml',
      'public/reffile.xml',
      'public/affiliatefile.xml',
      '.ratefile/status.json',
    ]),
  );
});

afterAll(async () => {
  await made.remove();
});

describe('broken configs', () => {
  it('the set is large and every mutation really changes the config', () => {
    expect(mutations.length).toBeGreaterThanOrEqual(200);
    for (const mutation of mutations) expect(mutation.yaml, mutation.name).not.toBe(sampleConfig);
    expect(new Set(mutations.map((m) => m.yaml)).size, 'distinct configs').toBeGreaterThanOrEqual(200);
  });

  async function expectRefused(mutation: Mutation, index: number): Promise<void> {
    await writeFile(made.configPath, mutation.yaml);
    // Every config through `build`; every fifth also through `build --dry-run`, which must refuse it alike.
    for (const args of index % 5 === 0 ? [['build'], ['build', '--dry-run']] : [['build']]) {
      const io = deps();
      const code = await run(['node', 'ratefile', ...args, '--config', 'ratefile.config.yaml'], io);
      const stderr = io.err();
      expect(code, `${args.join(' ')}: exit code; stderr:\n${stderr}`).toBe(2);
      expect(io.out()).toBe('');
      const [headline = '', ...details] = stderr.split('\n').filter((line) => line !== '');
      if ('path' in mutation.expected) {
        expect(headline).toMatch(/^ratefile: ratefile\.config\.yaml: \d+ problems?$/);
        const { path, got } = mutation.expected;
        const naming = details.filter(
          (line) => line.startsWith(`  ${path}`) && /^[:.[]/.test(line.slice(2 + path.length)),
        );
        expect(naming, `a problem line naming ${path}; got:\n${stderr}`).not.toEqual([]);
        if (got)
          expect(
            naming.some((line) => line.includes(got)),
            `a line naming ${path} says "${got}"; got:\n${stderr}`,
          ).toBe(true);
        for (const line of details) expect(line, 'every problem line is "path: message"').toMatch(/^ {2}\S.*: .+/);
      } else {
        expect(headline).toBe('ratefile: ratefile.config.yaml: not valid YAML');
        const lines = mutation.expected.yamlLines.join('|');
        expect(details.join('\n'), stderr).toMatch(new RegExp(`^ {2}line (${lines}), column \\d+: `, 'm'));
      }
    }
    // Nothing was written, moved or removed: not the exports, not the state folder.
    expect(await snapshot(made.dir, made.configPath)).toEqual(before);
  }

  const cases = mutations.map((mutation, index) => [mutation.name, mutation, index] as const);
  it.each(cases)('%s', async (_name, mutation, index) => {
    await expectRefused(mutation, index);
  });

  it('the good config still builds afterwards, to the same bytes', async () => {
    await writeFile(made.configPath, sampleConfig);
    const io = deps();
    expect(await run(['node', 'ratefile', 'build'], io), io.err()).toBe(0);
    const after = await snapshot(made.dir, made.configPath);
    for (const file of ['public/parserfile.xml', 'public/reffile.xml', 'public/affiliatefile.xml'])
      expect(after[file], file).toBe(before[file]);
  });
});
