// Reads a YAML file and checks it against a schema; problems come back with their path and line.
import { readFile } from 'node:fs/promises';
import { CORE_SCHEMA, load } from 'js-yaml';
import { LineCounter, parseDocument, isNode, visit, type Document } from 'yaml';
import type { z } from 'zod';
import { RatefileError } from '../errors.js';
import { formatPath, problemsFromIssues, type IssuePath, type Problem } from './problems.js';

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
    text = await readFile(path, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (cause as Error).message;
    throw new RatefileError('E_CONFIG', `${label}: ${reason}`, { cause });
  }
  // js-yaml (YAML 1.2 core schema, as `yaml` reads it) is ten times faster and lighter on a config of
  // 50,000 directions; `yaml` keeps positions, so it reads the file again only to explain a problem.
  // Explicit tags (`!!float 1`) are where the two differ: a text with a `!` anywhere goes to `yaml` alone.
  if (text.includes('!')) return readWithPositions(path, label, text);
  let data: unknown;
  try {
    data = load(text, { schema: CORE_SCHEMA, filename: path });
  } catch {
    return readWithPositions(path, label, text);
  }
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

/** Read the text with `yaml`'s document model: every error with its line, and the line of any value. */
function readWithPositions(path: string, label: string, text: string): YamlFile {
  const lineCounter = new LineCounter();
  const document: Document = parseDocument(text, { lineCounter, prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    throw new RatefileError('E_CONFIG', `${label}: not valid YAML`, {
      details: document.errors.map((error) => {
        const position = error.linePos?.[0] ?? lineCounter.linePos(error.pos[0]);
        return `${position ? `line ${position.line}, column ${position.col}: ` : ''}${error.message.split('\n')[0]}`;
      }),
    });
  }
  // An alias to an anchor never defined (`margin: *nothing`) is not among document.errors.
  const unresolved: string[] = [];
  visit(document, {
    Alias(_, node) {
      if (node.resolve(document) === undefined) {
        const position = lineCounter.linePos(node.range?.[0] ?? 0);
        unresolved.push(`line ${position.line}, column ${position.col}: alias *${node.source} names no anchor defined before it`);
      }
    },
  });
  if (unresolved.length > 0) throw new RatefileError('E_CONFIG', `${label}: not valid YAML`, { details: unresolved });
  const data: unknown = document.toJS();
  return {
    path,
    data,
    lineOf(issuePath) {
      for (let length = issuePath.length; length >= 0; length--) {
        const node = document.getIn(issuePath.slice(0, length) as unknown[], true);
        if (isNode(node) && node.range) return lineCounter.linePos(node.range[0]).line;
      }
      return undefined;
    },
  };
}

export function formatProblem(file: YamlFile, problem: Problem): string {
  const line = file.lineOf(problem.path);
  return `${formatPath(problem.path)}: ${problem.message}${line === undefined ? '' : ` (line ${line})`}`;
}

/** Validate a YAML file's data, collecting problems instead of stopping at the first. */
export function validateYaml<S extends z.ZodType>(file: YamlFile, schema: S): { data?: z.output<S>; problems: Problem[] } {
  const result = schema.safeParse(file.data ?? {}, { reportInput: true });
  if (result.success) return { data: result.data, problems: [] };
  return { problems: problemsFromIssues(result.error.issues, schema) };
}

export function configError(label: string, lines: string[]): RatefileError {
  return new RatefileError('E_CONFIG', `${label}: ${lines.length} problem${lines.length === 1 ? '' : 's'}`, { details: lines });
}
