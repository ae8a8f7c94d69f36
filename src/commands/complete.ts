// `ratefile __complete WORD…` (hidden; what the scripts of `ratefile completion` call for an argument or an option's
// value): the candidates for the last WORD of `ratefile WORD…`, one a line. Read from the program (choices of
// arguments and options, subcommands), the shipped monitor profiles (data/monitors/) and the config named on the
// line (`--config`), else RATEFILE_CONFIG, else ratefile.config.yaml here: its directions' codes, FROM then TO, and
// their cities, and after `--export` its templates' files (a private one's name is a secret: never offered). Only
// the YAML reader is loaded (and the templates' reader for `--export`), never the config's schema or the build; a
// missing or broken config gives no candidates, never an error. An option's value may share its word
// (`--config=other.yaml`, `--monitor=bes`). Exit status 3 (`wantsFiles`) asks the shell for file names instead.
import { readdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Argument, Command, Option } from 'commander';
import { defaultConfigFile } from '../base/config/defaults.js';

/** The exit status that asks the shell to complete file names: `--config`, `--out`, `check`'s files. */
export const wantsFiles = 3;

export type Completion = { files: true } | { files: false; candidates: string[] };

const monitorsDir = fileURLToPath(new URL('../../data/monitors/', import.meta.url));

/** An option's or an argument's value that names a file or folder, by the name its help gives the value. */
const fileValue = /^(path|dir|file\|url|info\.zip)$/;

interface Parsed {
  command: Command;
  positional: string[];
  /** `--config`'s value, when given before the word. */
  config?: string;
  /** `--city`'s value. */
  city?: string;
  /** The option whose value the last word is (a variadic one's: every word after it), and its values so far. */
  pending?: { option: Option; values: string[] } | undefined;
}

function findOption(command: Command, word: string): Option | undefined {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((candidate) => candidate.long === word || candidate.short === word);
    if (option) return option;
  }
  return undefined;
}

const takesValue = (option: Option) => option.required || option.optional;

/** The words before the last one, walked as commander would: subcommands, options and their values, arguments. */
function parse(program: Command, before: readonly string[]): Parsed {
  const parsed: Parsed = { command: program, positional: [] };
  for (let i = 0; i < before.length; i++) {
    const word = before[i]!;
    if (parsed.pending?.option.variadic && !word.startsWith('-')) {
      parsed.pending.values.push(word);
      continue;
    }
    parsed.pending = undefined;
    if (word.startsWith('-') && word.length > 1) {
      const [flag, inline] = word.split(/=(.*)/s, 2) as [string, string | undefined];
      const option = findOption(parsed.command, flag);
      if (!option || !takesValue(option)) continue;
      // `--config=other.yaml` carries its value; `--config other.yaml` takes the next word.
      const value = inline ?? before[i + 1];
      if (value === undefined || option.variadic)
        parsed.pending = { option, values: inline === undefined ? [] : [inline] };
      if (value === undefined) break;
      if (option.variadic) continue;
      if (inline === undefined) i++;
      if (option.long === '--config') parsed.config = value;
      if (option.long === '--city') parsed.city = value;
      continue;
    }
    const sub = parsed.positional.length === 0 && parsed.command.commands.find((c) => c.name() === word);
    if (sub) parsed.command = sub;
    else parsed.positional.push(word);
  }
  return parsed;
}

interface DirectionCodes {
  from: string[];
  to: string[];
  cities: string[];
}

const codesOf = (value: unknown): string[] =>
  (Array.isArray(value) ? value : [value]).filter((code): code is string => typeof code === 'string');

/** The config the line names, as written (its path and YAML data); undefined when it cannot be read. */
async function configOf(
  parsed: Parsed,
  cwd: string,
): Promise<{ path: string; data: Record<string, unknown> } | undefined> {
  const fallback = parsed.command.options.find((option) => option.long === '--config')?.defaultValue;
  const path = resolve(cwd, parsed.config ?? (typeof fallback === 'string' ? fallback : defaultConfigFile));
  try {
    const { readYamlFile } = await import('../base/config/yaml.js');
    const { data } = await readYamlFile(path, 'config');
    return typeof data === 'object' && data !== null ? { path, data: data as Record<string, unknown> } : undefined;
  } catch {
    return undefined;
  }
}

/** The `directions:` entries of the config as written (a code or a list each side); none when it cannot be read. */
async function directionsOf(parsed: Parsed, cwd: string): Promise<DirectionCodes[]> {
  const entries = (await configOf(parsed, cwd))?.data.directions;
  if (!Array.isArray(entries)) return [];
  return entries
    .filter((entry): entry is Record<string, unknown> => typeof entry === 'object' && entry !== null)
    .map((entry) => ({ from: codesOf(entry.from), to: codesOf(entry.to), cities: codesOf(entry.cities) }));
}

/** The files the config's templates write, as the build names them; a private one's name is a secret, never offered. */
async function exportFiles(parsed: Parsed, cwd: string): Promise<string[]> {
  const config = await configOf(parsed, cwd);
  if (!config) return [];
  const { data, path } = config;
  const folder = resolve(dirname(path), typeof data.templates === 'string' ? data.templates : 'templates');
  const currencies = typeof data.currencies === 'object' && data.currencies !== null ? data.currencies : {};
  try {
    const { loadTemplates } = await import('../io/exports/template.js');
    const { templates } = await loadTemplates(folder, new Set(Object.keys(currencies)), cwd);
    return templates.filter((template) => !template.private).map((template) => template.file);
  } catch {
    return [];
  }
}

const unique = (values: Iterable<string>) => [...new Set(values)];

/** What may stand in a `from`, `to` or `--city` place, given the codes before it. */
async function codes(
  parsed: Parsed,
  cwd: string,
  place: 'from' | 'to' | 'city',
  [from, to]: readonly (string | undefined)[],
): Promise<string[]> {
  const directions = await directionsOf(parsed, cwd);
  if (place === 'from') return unique(directions.flatMap((d) => d.from));
  const withFrom = directions.filter((d) => from !== undefined && d.from.includes(from));
  if (place === 'to') return unique(withFrom.flatMap((d) => d.to.filter((code) => code !== from)));
  return unique(withFrom.filter((d) => to !== undefined && d.to.includes(to)).flatMap((d) => d.cities));
}

async function monitorNames(): Promise<string[]> {
  try {
    const names = await readdir(monitorsDir);
    return names.filter((name) => /^[a-z0-9][a-z0-9-]*\.yaml$/.test(name)).map((name) => name.replace(/\.yaml$/, ''));
  } catch {
    return [];
  }
}

/** The name its help gives an option's value: `path` of `--config <path>`. */
const valueName = (option: Option) => /[<[]([^>\]]+)[>\]]/.exec(option.flags)?.[1]?.replace(/\.\.\.$/, '') ?? '';

/** The argument's names (`from`, `to`) with the words given for them. */
function argumentValues(command: Command, positional: readonly string[]): Map<string, string> {
  const values = new Map<string, string>();
  command.registeredArguments.forEach((argument, i) => {
    if (positional[i] !== undefined) values.set(argument.name(), positional[i]!);
  });
  return values;
}

async function optionValue(parsed: Parsed, cwd: string): Promise<Completion> {
  const { option, values } = parsed.pending!;
  if (option.argChoices) return { files: false, candidates: option.argChoices };
  if (fileValue.test(valueName(option))) return { files: true };
  if (option.long === '--monitor') return { files: false, candidates: await monitorNames() };
  if (option.long === '--export') return { files: false, candidates: await exportFiles(parsed, cwd) };
  const given = argumentValues(parsed.command, parsed.positional);
  if (option.long === '--city')
    return {
      files: false,
      candidates: await codes(parsed, cwd, 'city', [given.get('from'), given.get('to')]),
    };
  // `status --rate FROM TO`.
  if (option.variadic && valueName(option) === 'codes' && values.length < 2)
    return { files: false, candidates: await codes(parsed, cwd, values.length === 0 ? 'from' : 'to', values) };
  return { files: false, candidates: [] };
}

async function argumentValue(parsed: Parsed, cwd: string): Promise<Completion> {
  const { command, positional } = parsed;
  // `help COMMAND` (commander's own help command, not among the commands): a command's name.
  const asksHelp = positional.length === 1 && positional[0] === 'help' && command.commands.length > 0;
  if ((positional.length === 0 || asksHelp) && command.commands.length > 0)
    return {
      files: false,
      candidates: command
        .createHelp()
        .visibleCommands(command)
        .map((sub) => sub.name())
        .filter((name) => !asksHelp || name !== 'help'),
    };
  const declared = command.registeredArguments;
  const argument: Argument | undefined =
    declared[positional.length] ?? (declared.at(-1)?.variadic ? declared.at(-1) : undefined);
  if (!argument) return { files: false, candidates: [] };
  if (argument.argChoices) return { files: false, candidates: argument.argChoices };
  if (fileValue.test(argument.name())) return { files: true };
  const given = argumentValues(command, positional);
  if (argument.name() === 'from' || argument.name() === 'to')
    return {
      files: false,
      candidates: await codes(parsed, cwd, argument.name() as 'from' | 'to', [given.get('from')]),
    };
  return { files: false, candidates: [] };
}

/**
 * The last word as the value to complete, with the words before it: `--monitor=bes` is `--monitor` then `bes` (each
 * shell offers the bare value after the `=`); any other word starting with `-` is an option's name: undefined.
 */
function lastValue(words: readonly string[]): { before: string[]; current: string; inline: boolean } | undefined {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  if (!current.startsWith('-')) return { before, current, inline: false };
  const inline = /^(--[^=]+)=(.*)$/s.exec(current);
  return inline ? { before: [...before, inline[1]!], current: inline[2]!, inline: true } : undefined;
}

/** The candidates for the last of `words` (the words after the program's name; the last may be empty). */
export async function complete(program: Command, words: readonly string[], cwd: string): Promise<Completion> {
  const last = lastValue(words);
  // An option's name is the scripts' to complete (with its description); here only what is not an option.
  if (!last) return { files: false, candidates: [] };
  const parsed = parse(program, last.before);
  // `--dry-run=…`: an option that takes no value has none to offer.
  if (last.inline && !parsed.pending) return { files: false, candidates: [] };
  const found = parsed.pending ? await optionValue(parsed, cwd) : await argumentValue(parsed, cwd);
  if (found.files) return found;
  const prefix = last.current.toLowerCase();
  return {
    files: false,
    candidates: found.candidates.filter((candidate) => candidate.toLowerCase().startsWith(prefix)),
  };
}
