// `ratefile --help` lists the commands in groups, the everyday ones first, and every command's help ends with an
// Examples block whose every line the program itself parses: a renamed option or a wrong code fails here.
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../../src/cli.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { repoRoot } from '../../support/process.js';
import { fixedNow, offlineFetch, runRatefile } from '../../support/run-cli.js';

const groups = [
  ['Getting started', ['init', 'validate', 'build', 'start']],
  ['Day to day', ['status', 'explain', 'pause', 'resume', 'maintenance', 'accept', 'check']],
  ['Proving what was published', ['at', 'archive', 'quote']],
  ['Deploying', ['serve', 'publish', 'edge', 'probe', 'alert']],
  ['Setup', ['schema', 'completion', 'help']],
] as const;

/** The sections of a help text by heading, in order, each with the names its lines begin with. */
function sections(help: string): [string, string[]][] {
  const found: [string, string[]][] = [];
  for (const line of help.split('\n')) {
    const heading = /^([A-Z][^:]*):$/.exec(line);
    if (heading) found.push([heading[1]!, []]);
    const name = /^ {2}([a-z][a-z-]*)\b/.exec(line)?.[1];
    if (name && found.length > 0) found.at(-1)![1].push(name);
  }
  return found;
}

/** Every command path below the program: `explain`, `archive`, `archive verify`. */
function commandPaths(parent: Command, prefix: string[] = []): string[][] {
  return parent.commands
    .filter((command) => command.name() !== 'help')
    .flatMap((command) => [[...prefix, command.name()], ...commandPaths(command, [...prefix, command.name()])]);
}

/** A command line split as sh does for these examples: quotes kept together, a `>` redirect and what follows dropped. */
function shellWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(/"([^"]*)"|'([^']*)'|(>)|(\S+)/g)) {
    if (match[3]) break;
    words.push(match[1] ?? match[2] ?? match[4]!);
  }
  return words;
}

/** `$ ratefile …` lines of a help's Examples block, each with the line explaining it. */
function examplesIn(help: string): { line: string; what: string }[] {
  const block = help.split(/^Examples:$/m)[1] ?? '';
  return [...block.matchAll(/^ {2}\$ (.+)\n {6}(\S.*)$/gm)].map((m) => ({ line: m[1]!, what: m[2]! }));
}

const helpOf = async (args: string[]) => (await runRatefile([...args, '--help'], repoRoot)).stdout;

describe('ratefile --help', () => {
  it('lists every command in its group, the groups in order, the first a newcomer runs first', async () => {
    const help = await helpOf([]);
    const commandSections = sections(help).filter(([heading]) => !['Usage', 'Options'].includes(heading));
    expect(commandSections).toEqual(groups.map(([heading, names]) => [heading, [...names]]));
    // No command is left out of the groups.
    const program = createProgram(quietDeps(), () => {});
    expect(groups.flatMap(([, names]) => names.filter((name) => name !== 'help')).sort()).toEqual(
      program.commands.map((c) => c.name()).sort(),
    );
  });
});

describe('every command ends its help with examples that parse', () => {
  const paths = commandPaths(createProgram(quietDeps(), () => {}));

  it.each(paths.map((path) => [path.join(' '), path]))('ratefile %s --help', async (_, path) => {
    const help = await helpOf(path);
    expect(help.trimEnd()).toMatch(/\nExamples:\n(?: {2}\$ .+\n {6}\S.*\n?)+$/);
    const found = examplesIn(help);
    expect(found.length).toBeGreaterThanOrEqual(2);
    expect(found.length).toBeLessThanOrEqual(4);
    for (const { line } of found) expect(shellWords(line).slice(0, path.length + 1)).toEqual(['ratefile', ...path]);
  });

  it.each(paths.map((path) => [path.join(' '), path]))(
    "each example of ratefile %s is a line the program accepts, naming the demo config's directions",
    async (_, path) => {
      const config = await loadConfig(join(repoRoot, 'ratefile.config.yaml'));
      const directions = new Map(config.directions.map((d) => [d.id, d]));
      for (const { line } of examplesIn(await helpOf(path))) {
        const parsed = await parseOnly(shellWords(line).slice(1));
        // The examples of `archive` run its subcommands.
        expect(parsed.path.slice(0, path.length), line).toEqual(path);
        const { from, to } = parsed.codes;
        if (from === undefined || to === undefined) continue;
        const direction = directions.get(`${from}>${to}`);
        expect(direction, `${line}: the demo config has no ${from} → ${to}`).toBeDefined();
        if (parsed.city !== undefined) expect(direction!.cities, line).toContain(parsed.city);
      }
    },
  );
});

/** Dependencies that do nothing: the program is only parsed. */
function quietDeps() {
  const sink = { write: () => true };
  return {
    stdout: sink,
    stderr: sink,
    env: {},
    cwd: repoRoot,
    now: fixedNow,
    fetch: offlineFetch,
    waitForStop: () => new Promise<string>(() => {}),
  };
}

interface Parsed {
  path: string[];
  codes: { from?: string; to?: string };
  city?: string;
}

/**
 * The words parsed by the real program with every action replaced by one that records what it was given: commander
 * checks the options, their values and choices, and the count of arguments, and nothing runs.
 */
async function parseOnly(words: string[]): Promise<Parsed> {
  const program = createProgram(quietDeps(), () => {});
  let parsed: Parsed | undefined;
  const replace = (command: Command, path: string[]) => {
    for (const sub of command.commands) {
      const at = [...path, sub.name()];
      sub.action((...args: unknown[]) => {
        const names = sub.registeredArguments.map((argument) => argument.name());
        const options = args[names.length] as { rate?: string[]; city?: string };
        const value = (name: string) => args[names.indexOf(name)] as string | undefined;
        const [from, to] = options.rate ?? [value('from'), value('to')];
        parsed = {
          path: at,
          codes: { ...(from ? { from } : {}), ...(to ? { to } : {}) },
          ...(options.city ? { city: options.city } : {}),
        };
      });
      replace(sub, at);
    }
  };
  replace(program, []);
  await program.parseAsync(['node', 'ratefile', ...words]);
  if (!parsed) throw new Error(`ratefile ${words.join(' ')} ran no command`);
  return parsed;
}
