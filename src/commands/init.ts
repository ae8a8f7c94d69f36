// `ratefile init [dir]`: a starter project (commented config, the three templates, two quotes files with two example
// quotes each); never overwrites a file.
import { lstat, mkdir, rm, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import { RatefileError } from '../base/errors.js';
import type { CommandContext } from './context.js';
import { starterConfig, starterExchangeQuotes, starterQuotes, starterTemplates } from './starter.js';

export function starterFiles(): Record<string, string> {
  return {
    'ratefile.config.yaml': starterConfig,
    'quotes.json': starterQuotes,
    'exchange.json': starterExchangeQuotes,
    ...Object.fromEntries(Object.entries(starterTemplates).map(([name, text]) => [join('templates', name), text])),
  };
}

const exists = (path: string) =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** Write the starter files into `dir`; refuses, writing nothing, when any of them exists. Returns the paths written. */
export async function writeStarter(dir: string): Promise<string[]> {
  const files = Object.entries(starterFiles()).map(([name, text]) => ({ path: join(dir, name), text }));
  const taken = [];
  for (const file of files) if (await exists(file.path)) taken.push(file.path);
  if (taken.length > 0) {
    throw new RatefileError('E_USAGE', `refusing to overwrite existing files in ${dir} (nothing was written)`, {
      details: taken,
    });
  }
  const written: string[] = [];
  try {
    await mkdir(join(dir, 'templates'), { recursive: true });
    // 'wx' fails rather than overwrite a file that appeared since the check above.
    for (const file of files) {
      await writeFile(file.path, file.text, { flag: 'wx' });
      written.push(file.path);
    }
  } catch (cause) {
    await Promise.all(written.map((path) => rm(path, { force: true })));
    throw new RatefileError(
      'E_USAGE',
      `cannot write the starter files in ${dir}: ${(cause as Error).message} (nothing was kept)`,
      { cause },
    );
  }
  return written;
}

export function register(program: Command, context: CommandContext): void {
  const { deps } = context;
  program
    .command('init')
    .description(
      'write a starter config, the three export templates and two quotes files of example quotes (never overwrites)',
    )
    .argument('[dir]', 'folder to create them in', '.')
    .action(async (folder: string) => {
      const dir = resolve(deps.cwd, folder);
      const written = await writeStarter(dir);
      const config = context.shown(join(dir, 'ratefile.config.yaml'));
      deps.stdout.write(
        [
          `created a ratefile project in ${context.shown(dir)}:`,
          ...written.map((path) => `  ${relative(dir, path)}`),
          'next:',
          `  1. edit ${config}: your currencies, reserves and directions`,
          `  2. replace the example quotes: have your back office write ${context.shown(join(dir, 'quotes.json'))}, and make exchange.json's source a second one (format and why in the config's comments)`,
          `  3. ratefile build --config ${config} --dry-run    (see the files and what is held back, and why)`,
          `  4. ratefile start --config ${config}              (build every 30 s and serve; dashboard at http://127.0.0.1:8080/)`,
          '',
        ].join('\n'),
      );
      context.setExitCode(0);
    });
}
