// Reads a YAML file and checks it against a schema; problems come back with their path and line.
import { CORE_SCHEMA, load, type EventType, type State } from 'js-yaml';
import {
  LineCounter,
  parseDocument,
  isMap,
  isNode,
  isScalar,
  isSeq,
  type Document,
  type Pair,
  type Scalar,
  type YAMLMap,
} from 'yaml';
import type { z } from 'zod';
import { quoteValue, RatefileError } from '../errors.js';
import { NotRegularFileError, readRegularFile } from '../files.js';
import { allowedAliasValues, checkAliases, measureData } from './aliases.js';
import { formatPath, problemsFromIssues, type IssuePath, type Problem } from './problems.js';
import { plural } from '../words.js';
import { ownString } from '../own-string.js';

export interface YamlFile {
  path: string;
  /** The parsed value before validation. */
  data: unknown;
  /** Line (1-based) of the value at `path`, or of its closest ancestor present in the file. */
  lineOf(path: IssuePath): number | undefined;
}

export async function readYamlFile(path: string, label: string): Promise<YamlFile> {
  let text: string;
  try {
    // A FIFO or a device in place of the file is refused, never waited on.
    ({ text } = await readRegularFile(path));
  } catch (cause) {
    const code = (cause as NodeJS.ErrnoException).code;
    const reason =
      code === 'ENOENT'
        ? 'file not found'
        : code === 'EISDIR' || cause instanceof NotRegularFileError
          ? `expected a regular file, got ${cause instanceof NotRegularFileError ? cause.kind : 'a directory'}`
          : (cause as Error).message;
    throw new RatefileError('E_CONFIG', `${label}: ${reason}`, { cause });
  }
  // js-yaml (YAML 1.2 core schema, as `yaml` reads it) builds plain values, while `yaml` builds a document that
  // keeps every node's position, far more work on a large config: `yaml` reads the file again only to explain a problem.
  // Explicit tags (`!!float 1`) are where the two differ: a text with a `!` anywhere goes to `yaml` alone.
  if (text.includes('!')) return readWithPositions(path, label, text);
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA, filename: path, listener: compactor() });
  } catch {
    return readWithPositions(path, label, text);
  }
  // An alias holding itself or aliases expanding too far: `yaml` finds the alias to blame. No `*`, no alias.
  const measured = text.includes('*') ? measureData(data) : { distinct: 0, added: 0 };
  if (measured === undefined || measured.added > allowedAliasValues(measured.distinct))
    return readWithPositions(path, label, text);
  let positioned: YamlFile | undefined;
  return {
    path,
    data,
    lineOf(issuePath) {
      positioned ??= readWithPositions(path, label, text);
      return positioned.lineOf(issuePath);
    },
  };
}

/**
 * Makes js-yaml's tree smaller as it is read, node by node as each closes: a list is copied to its exact size (js-yaml
 * grows a list by half plus 16 items, so a one-item list keeps room for 17), and each text is the first equal one
 * read (a large config repeats a few hundred codes, tags and amounts). At 100,000 directions the tree is 13 MB
 * instead of 35. Only a list with no anchor of its own is copied, and never an alias (its kind is none): what an
 * alias refers to stays the very object the anchor names, so measureData counts them as before. A longer text is
 * copied (`ownString`): as read, it is a slice that keeps js-yaml's copy of the whole file alive as long as the
 * config keeps the text (a URL, a path, working hours), 5 MB at 100,000 directions.
 */
function compactor(): (event: EventType, state: State) => void {
  const texts = new Map<string, string>();
  return (event, state) => {
    if (event !== 'close') return;
    const result: unknown = state.result;
    if (typeof result === 'string') {
      let known = texts.get(result);
      if (known === undefined) texts.set(result, (known = ownString(result)));
      state.result = known;
    } else if (
      state.kind === 'sequence' &&
      (state as State & { anchor?: string | null }).anchor === null &&
      Array.isArray(result)
    ) {
      state.result = result.slice();
    }
  };
}

/** Problems listed in an error; beyond this the rest are counted, so a generated file cannot flood a terminal or a log. */
const MAX_PROBLEMS_SHOWN = 100;

function capped(lines: readonly string[]): string[] {
  const rest = lines.length - MAX_PROBLEMS_SHOWN;
  return rest > 0 ? [...lines.slice(0, MAX_PROBLEMS_SHOWN), `… and ${plural(rest, 'more problem')}`] : [...lines];
}

/**
 * Keys repeated in a mapping, each with the key's first place, found with one map per mapping: `yaml`'s own
 * `uniqueKeys` compares every key with every earlier one, so its time grows with the square of a mapping's size.
 */
function duplicateKeys(document: Document): { key: Scalar; first: Scalar }[] {
  const found: { key: Scalar; first: Scalar }[] = [];
  const walk = (node: unknown) => {
    if (isSeq(node)) for (const item of node.items) walk(item);
    if (!isMap(node)) return;
    const seen = new Map<unknown, Scalar>();
    for (const pair of node.items) {
      if (isScalar(pair.key)) {
        const first = seen.get(pair.key.value);
        if (first) found.push({ key: pair.key, first });
        else seen.set(pair.key.value, pair.key);
      }
      walk(pair.value);
    }
  };
  walk(document.contents);
  return found;
}

/** Read the text with `yaml`'s document model: every error with its line, and the line of any value. */
function readWithPositions(path: string, label: string, text: string): YamlFile {
  const lineCounter = new LineCounter();
  const at = (offset: number) => {
    const position = lineCounter.linePos(offset);
    return `line ${position.line}, column ${position.col}: `;
  };
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: false });
  const errors = document.errors.map((error) => ({
    offset: error.pos[0],
    text: `${error.linePos?.[0] ? `line ${error.linePos[0].line}, column ${error.linePos[0].col}: ` : at(error.pos[0])}${error.message.split('\n')[0]}`,
  }));
  if (errors.length === 0) {
    for (const { key, first } of duplicateKeys(document))
      errors.push({
        offset: key.range![0],
        text: `${at(key.range![0])}duplicate key ${quoteValue(String(key.value))}, first on line ${lineCounter.linePos(first.range![0]).line}`,
      });
  }
  if (errors.length > 0) {
    throw new RatefileError('E_CONFIG', `${label}: not valid YAML`, {
      details: capped(errors.sort((a, b) => a.offset - b.offset).map((error) => error.text)),
    });
  }
  // Aliases to no anchor, aliases inside what they name, alias bombs: none of these are among document.errors.
  const aliasProblems = checkAliases(document);
  if (aliasProblems.length > 0) {
    throw new RatefileError('E_CONFIG', `${label}: not valid YAML`, {
      details: capped(aliasProblems.map(({ alias, message }) => `${at(alias.range?.[0] ?? 0)}${message}`)),
    });
  }
  // checkAliases bounded what aliases add, so yaml's own limit (100 uses of any anchor) is not needed.
  const data: unknown = document.toJS({ maxAliasCount: -1 });
  // Each mapping's keys indexed once, when first asked: a lookup per problem must not scan the mapping.
  const indexes = new WeakMap<YAMLMap, Map<string, Pair>>();
  const pairIn = (map: YAMLMap, key: string) => {
    let index = indexes.get(map);
    if (!index) {
      index = new Map();
      for (const pair of map.items) if (isScalar(pair.key)) index.set(String(pair.key.value), pair as Pair);
      indexes.set(map, index);
    }
    return index.get(key);
  };
  return {
    path,
    data,
    lineOf(issuePath) {
      // The deepest node on the path that the file holds (an alias is not followed).
      let node: unknown = document.contents;
      let line: number | undefined;
      for (let depth = 0; ; depth++) {
        if (isNode(node) && node.range) line = lineCounter.linePos(node.range[0]).line;
        const key = issuePath[depth];
        if (key === undefined) break;
        if (isMap(node)) node = pairIn(node, String(key))?.value;
        else if (isSeq(node) && typeof key === 'number') node = node.items[key];
        else break;
      }
      return line;
    },
  };
}

export function formatProblem(file: YamlFile, problem: Problem): string {
  const line = file.lineOf(problem.path);
  return `${formatPath(problem.path)}: ${problem.message}${line === undefined ? '' : ` (line ${line})`}`;
}

/** Validate a YAML file's data, collecting problems instead of stopping at the first. */
export function validateYaml<S extends z.ZodType>(
  file: YamlFile,
  schema: S,
): { data?: z.output<S>; problems: Problem[] } {
  const result = schema.safeParse(file.data ?? {}, { reportInput: true });
  if (result.success) return { data: result.data, problems: [] };
  return { problems: problemsFromIssues(result.error.issues, schema) };
}

export function configError(label: string, lines: string[]): RatefileError {
  return new RatefileError('E_CONFIG', `${label}: ${plural(lines.length, 'problem')}`, { details: capped(lines) });
}
