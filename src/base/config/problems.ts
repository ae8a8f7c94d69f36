// Turns schema issues into "path: expected …, got …" lines, every problem at once.
import type { z } from 'zod';
import { quoteValue } from '../errors.js';
import { describeValue } from './fields.js';

export type IssuePath = readonly PropertyKey[];

/** Keys shown bare in a path; any other key is quoted (`sources["my source"]`), so a key cannot forge a line. */
const plainKey = /^[A-Za-z0-9_/-]+$/;

/** `['directions', 3, 'margin']` → `directions[3].margin`. */
export function formatPath(path: IssuePath): string {
  let text = '';
  for (const key of path) {
    if (typeof key === 'number') text += `[${key}]`;
    else if (!plainKey.test(String(key))) text += `[${quoteValue(String(key))}]`;
    else text += text === '' ? String(key) : `.${String(key)}`;
  }
  return text === '' ? '(top level)' : text;
}

export interface Problem {
  path: IssuePath;
  message: string;
}

/** Edit distance, for "did you mean" hints on unknown keys and codes. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j]!;
      row[j] = Math.min(above + 1, row[j - 1]! + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length]!;
}

/** The closest candidate within a small edit distance, if any. */
export function closest(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(word.length / 3)) + 1;
  const lower = word.toLowerCase();
  for (const candidate of candidates) {
    // Lengths further apart than the best distance so far cannot do better; most candidates end here.
    const other = candidate.toLowerCase();
    if (Math.abs(other.length - lower.length) >= bestDistance) continue;
    const d = distance(lower, other);
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best;
}

interface SchemaDef {
  type: string;
  shape?: Record<string, z.ZodType>;
  element?: z.ZodType;
  valueType?: z.ZodType;
  innerType?: z.ZodType;
  out?: z.ZodType;
  options?: z.ZodType[];
}

const defOf = (schema: z.ZodType): SchemaDef => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;

/** The keys an object schema allows at `path`, to suggest the one a misspelt key meant. */
function keysAt(schema: z.ZodType, path: IssuePath): string[] {
  const def = defOf(schema);
  const next = def.innerType ?? (def.type === 'pipe' ? def.out : undefined);
  if (next) return keysAt(next, path);
  if (def.type === 'union') return def.options!.flatMap((option) => keysAt(option, path));
  if (path.length === 0) return def.shape ? Object.keys(def.shape) : [];
  const [key, ...rest] = path;
  if (def.shape && typeof key === 'string' && def.shape[key]) return keysAt(def.shape[key], rest);
  if (def.element) return keysAt(def.element, rest);
  if (def.valueType) return keysAt(def.valueType, rest);
  return [];
}

const defaultMessages =
  /^(Invalid input|Too big|Too small|Invalid option|Invalid string|Invalid key|Invalid element|Invalid value)/;
const isDefaultMessage = (message: string) => defaultMessages.test(message);

const typeNames: Record<string, string> = {
  object: 'a mapping',
  record: 'a mapping',
  array: 'a list',
  string: 'a text',
  number: 'a number',
  int: 'a whole number',
  boolean: 'true or false',
};

/** Zod's default texts rewritten as `expected …, got …`, the one form every problem line takes. */
function plainMessage(issue: z.core.$ZodIssue): string {
  const got = `got ${describeValue(issue.input)}`;
  switch (issue.code) {
    case 'invalid_type':
      return `expected ${typeNames[issue.expected] ?? issue.expected}, ${got}`;
    case 'too_big':
      return issue.origin === 'array'
        ? `expected at most ${issue.maximum} items`
        : `expected at most ${issue.maximum}, ${got}`;
    case 'too_small':
      if (issue.origin === 'array')
        return `expected at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}, got an empty list`;
      if (issue.origin === 'string') return `expected a non-empty text, ${got}`;
      return `expected at least ${issue.minimum}, ${got}`;
    case 'invalid_value':
      return `expected one of ${issue.values.map((value) => String(value)).join(', ')}, ${got}`;
    default:
      return `unexpected value: ${got}`;
  }
}

/**
 * Flatten zod issues into problems, picking the branch of a union that matches the input's kind.
 * `schema` is the root schema that produced them, used for "did you mean" hints on unknown keys.
 */
export function problemsFromIssues(
  issues: readonly z.core.$ZodIssue[],
  schema: z.ZodType,
  base: IssuePath = [],
): Problem[] {
  const problems: Problem[] = [];
  for (const issue of issues) {
    const path = [...base, ...issue.path];
    if (issue.code === 'unrecognized_keys') {
      const known = keysAt(schema, path);
      for (const key of issue.keys) {
        const hint = closest(key, known);
        problems.push({ path: [...path, key], message: `unknown key${hint ? ` (did you mean "${hint}"?)` : ''}` });
      }
    } else if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // The branch whose shape the value has (a list for a list) explains best; when the value has
      // none of the shapes, the union's own message, or a plain one.
      const branch = issue.errors.find(
        (errors) => !errors.every((e) => e.code === 'invalid_type' && e.path.length === 0),
      );
      if (branch) problems.push(...problemsFromIssues(branch, schema, path));
      else
        problems.push({
          path,
          message: isDefaultMessage(issue.message) ? `unexpected value ${describeValue(issue.input)}` : issue.message,
        });
    } else if (issue.code === 'invalid_key') {
      problems.push(
        ...problemsFromIssues(issue.issues, schema, path).map((p) => ({
          ...p,
          message: `key ${describeValue(issue.input)}: ${p.message}`,
        })),
      );
    } else if (issue.code === 'invalid_type' && issue.input === undefined) {
      problems.push({ path, message: 'required' });
    } else {
      problems.push({ path, message: isDefaultMessage(issue.message) ? plainMessage(issue) : issue.message });
    }
  }
  return problems;
}
