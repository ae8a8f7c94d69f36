// Throwaway ratefile projects in temporary folders: a config, a quotes file and the three templates.
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { Decimal } from '../../src/base/decimal.js';

// No `time`: a quote is then as old as the file, so a project made for a test is fresh whatever the clock.
export const sampleQuotes = {
  quotes: [
    { pair: 'BTC/USDT', bid: '97012.30', ask: '97012.31' },
    { pair: 'USDT/RUB', bid: '92.10', ask: '92.35' },
  ],
};

/** The sample's quotes stamped `now`, BTC/USDT's prices × `btc` and USDT/RUB's × `usdt`, written to quotes.json. */
export async function writeSampleQuotes(made: Pick<Project, 'write'>, now: Date, btc = '1', usdt = '1'): Promise<void> {
  const scale = (factor: string, price: string) => new Decimal(factor).times(price).toFixed();
  const time = now.toISOString();
  await made.write(
    'quotes.json',
    JSON.stringify({
      quotes: [
        { pair: 'BTC/USDT', bid: scale(btc, '97012.30'), ask: scale(btc, '97012.31'), time },
        { pair: 'USDT/RUB', bid: scale(usdt, '92.10'), ask: scale(usdt, '92.35'), time },
      ],
    }),
  );
}

export const sampleConfig = `# a small exchanger for tests
sources:
  backoffice: { type: file, path: quotes.json }
currencies:
  BTC: { reserve: "3" }
  USDTTRC20: { precision: 2, reserve: "100000" }
  SBERRUB: { reserve: "5000000" }
  CASHRUB: { precision: 0, reserve: "3000000" }
defaults:
  margin: 1.5%
directions:
  - { from: BTC, to: [SBERRUB, USDTTRC20], min: 0.001, max: "500000 RUB", tags: [ref] }
  - { from: SBERRUB, to: USDTTRC20, min: 5000, params: [manual], fromfee: "1%" }
  - { from: USDTTRC20, to: CASHRUB, cities: [MSK, SPB], tags: [ref, cash] }
`;

/**
 * The sample rebuilt every second. Its quotes file does not change between builds, so it would look
 * stale after two seconds (the default maxAge is twice the schedule period): the limit is off here.
 */
export const everySecondConfig = `${sampleConfig.replace('backoffice: { type: file, path: quotes.json }', 'backoffice: { type: file, path: quotes.json, maxAge: "off" }')}schedule: "*/1 * * * * *"\n`;

export const sampleTemplates: Record<string, string> = {
  'parserfile.yaml': 'description: every direction\n',
  'reffile.yaml': 'include: { tags: [ref] }\naliases: { USDTTRC20: USDTTRC }\n',
  'affiliatefile.yaml':
    'markup: 0.5%\nexclude: { tags: [cash] }\nurl: "https://exchanger.example/?cur_from={from}&cur_to={to}"\n',
};

export interface Project {
  dir: string;
  configPath: string;
  write(name: string, content: string): Promise<void>;
  remove(): Promise<void>;
}

/** A project folder with the sample files, any of which `files` replaces (path relative to the folder). */
export async function makeProject(files: Record<string, string> = {}): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-test-'));
  const write = async (name: string, content: string) => {
    const path = join(dir, name);
    await mkdir(join(path, '..'), { recursive: true });
    await writeFile(path, content);
  };
  const all: Record<string, string> = {
    'ratefile.config.yaml': sampleConfig,
    'quotes.json': JSON.stringify(sampleQuotes, null, 2),
    ...Object.fromEntries(Object.entries(sampleTemplates).map(([name, text]) => [`templates/${name}`, text])),
    ...files,
  };
  for (const [name, content] of Object.entries(all)) await write(name, content);
  return {
    dir,
    configPath: join(dir, 'ratefile.config.yaml'),
    write,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

/** makeProject for one test file: every project it makes is removed after each test. */
export function projectsPerTest(): (files?: Record<string, string>) => Promise<Project> {
  const made: Project[] = [];
  afterEach(async () => {
    await Promise.all(made.splice(0).map((project) => project.remove()));
  });
  return async (files = {}) => {
    const project = await makeProject(files);
    made.push(project);
    return project;
  };
}
