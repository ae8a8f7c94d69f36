// How far YAML aliases expand a file. Both readers share an aliased value by reference, but everything that walks the
// result (the schema, the cross-checks, a JSON dump) walks a tree: nine lines of `&a [*b, *b, …]` become a billion
// values. Counted here once per distinct value, so measuring costs as much as the file, never as much as the tree.
import { isAlias, isMap, isPair, isScalar, isSeq, type Alias, type Document, type Node } from 'yaml';

/** Aliases may add as many values as the file holds itself, plus this many: room for every sane use of anchors. */
const ALIAS_ALLOWANCE = 100_000;

export const allowedAliasValues = (distinct: number): number => distinct + ALIAS_ALLOWANCE;

/** Values in a reader's result: `distinct` ones, and those `added` by aliases; undefined when an alias holds itself. */
export function measureData(data: unknown): { distinct: number; added: number } | undefined {
  // Size of every collection met; OPEN while it is being measured, so one that holds itself is noticed.
  const OPEN = -1;
  const sizes = new Map<object, number>();
  let distinct = 0;
  let added = 0;
  let cyclic = false;
  const measure = (value: unknown): number => {
    if (typeof value !== 'object' || value === null) {
      distinct++;
      return 1;
    }
    const known = sizes.get(value);
    if (known === OPEN) {
      cyclic = true;
      return 1;
    }
    if (known !== undefined) {
      added += known;
      return known;
    }
    sizes.set(value, OPEN);
    distinct++;
    let size = 1;
    if (Array.isArray(value)) for (const item of value) size += measure(item);
    else for (const key in value) size += measure((value as Record<string, unknown>)[key]);
    sizes.set(value, size);
    return size;
  };
  measure(data);
  return cyclic ? undefined : { distinct, added };
}

export interface AliasProblem {
  alias: Alias;
  message: string;
}

/**
 * Resolve every alias of `document` in one pass, counting values as `measureData` counts them on the result:
 * an alias names the last anchor before it (as `yaml` resolves it), a collection holding its own alias is refused,
 * and aliases adding more than the allowance are reported at the alias where the total passed it.
 */
export function checkAliases(document: Document): AliasProblem[] {
  const anchors = new Map<string, Node>();
  const sizes = new Map<Node, number>();
  const open = new Set<Node>();
  const problems: AliasProblem[] = [];
  const expansions: { alias: Alias; size: number }[] = [];
  let distinct = 0;
  const anchor = (node: unknown) => {
    if (isScalar(node) || isMap(node) || isSeq(node)) if (node.anchor) anchors.set(node.anchor, node);
  };
  // Keys are not values of the result (js-yaml makes them texts), but they may carry anchors.
  const visitKey = (key: unknown) => {
    if (isAlias(key) && !anchors.has(key.source))
      problems.push({ alias: key, message: `alias *${key.source} names no anchor defined before it` });
    else if (isMap(key) || isSeq(key)) walk(key);
    else anchor(key);
  };
  const walk = (node: unknown): number => {
    if (isAlias(node)) {
      const target = anchors.get(node.source);
      if (target === undefined)
        problems.push({ alias: node, message: `alias *${node.source} names no anchor defined before it` });
      else if (open.has(target))
        problems.push({ alias: node, message: `alias *${node.source} is inside the value it names` });
      else if (isScalar(target)) distinct++;
      else {
        const size = sizes.get(target) ?? 1;
        expansions.push({ alias: node, size });
        return size;
      }
      return 1;
    }
    anchor(node);
    distinct++;
    if (!isMap(node) && !isSeq(node)) return 1;
    open.add(node);
    let size = 1;
    for (const item of node.items) {
      if (!isPair(item)) {
        size += walk(item);
        continue;
      }
      // A pair in a list (`[a: 1]`) is a mapping of its own.
      if (isSeq(node)) [size, distinct] = [size + 1, distinct + 1];
      visitKey(item.key);
      size += item.value === null ? (distinct++, 1) : walk(item.value);
    }
    open.delete(node);
    sizes.set(node, size);
    return size;
  };
  walk(document.contents);
  const allowed = allowedAliasValues(distinct);
  let added = 0;
  for (const { alias, size } of expansions) {
    added += size;
    if (added > allowed) {
      problems.push({
        alias,
        message: `alias *${alias.source} (${size} values) takes what aliases repeat past ${allowed}, the most for this file (its own ${distinct} values plus ${ALIAS_ALLOWANCE})`,
      });
      break;
    }
  }
  return problems;
}
