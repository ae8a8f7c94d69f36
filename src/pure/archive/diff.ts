// What changed between two versions of an export, segment by segment (segments.ts), as a list of operations that
// turn the old segments into the new ones exactly. Pure. A segment whose numbers alone moved is written as those
// numbers; anything else as its new text. The archive keeps these between its keyframes (src/io/archive/recorder.ts).

import { skeletonOf, tokensOf } from './segments.js';

/**
 * One operation, read in turn against a cursor in the old segments:
 * - a positive integer n: the next n old segments, unchanged;
 * - a negative integer −n: the next n old segments, left out;
 * - a string: a new segment, inserted;
 * - an array `[k, "text", k, "text", …]`: the next old segment with its k-th numbers (0-based) replaced.
 * Old segments after the last operation are left out.
 */
export type DiffOp = number | string | (number | string)[];

/** The operations from `old` to `next`: equal ends kept, the middle aligned by each segment's skeleton. */
export function diffSegments(old: readonly string[], next: readonly string[]): DiffOp[] {
  const ops = new Ops();
  let head = 0;
  while (head < old.length && head < next.length && old[head] === next[head]) head++;
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < next.length - head &&
    old[old.length - 1 - tail] === next[next.length - 1 - tail]
  )
    tail++;
  ops.keep(head);
  const oldMiddle = old.slice(head, old.length - tail);
  const newMiddle = next.slice(head, next.length - tail);
  if (oldMiddle.length === newMiddle.length)
    for (let i = 0; i < newMiddle.length; i++) ops.change(oldMiddle[i]!, newMiddle[i]!);
  else alignMiddle(ops, oldMiddle, newMiddle);
  ops.keep(tail);
  return ops.list;
}

/**
 * Old and new middles of different lengths (items added or left out): each new segment is matched with the next
 * old one of its skeleton after the last match, the old ones passed over are left out, a new one with no match
 * is inserted. Greedy and in order, so an export's items (in config order) align as they are.
 */
function alignMiddle(ops: Ops, old: readonly string[], next: readonly string[]): void {
  const positions = new Map<string, number[]>();
  old.forEach((segment, index) => {
    const key = skeletonOf(segment);
    const list = positions.get(key);
    if (list) list.push(index);
    else positions.set(key, [index]);
  });
  const used = new Map<string, number>();
  let cursor = 0;
  for (const segment of next) {
    const key = skeletonOf(segment);
    const list = positions.get(key) ?? [];
    let at = used.get(key) ?? 0;
    while (at < list.length && list[at]! < cursor) at++;
    used.set(key, at + 1);
    const match = list[at];
    if (match === undefined) {
      ops.insert(segment);
      continue;
    }
    ops.skip(match - cursor);
    ops.change(old[match]!, segment);
    cursor = match + 1;
  }
  ops.skip(old.length - cursor);
}

/** The list being made, with runs of kept and left-out segments merged. */
class Ops {
  readonly list: DiffOp[] = [];

  keep(count: number): void {
    if (count === 0) return;
    const last = this.list.at(-1);
    if (typeof last === 'number' && last > 0) this.list[this.list.length - 1] = last + count;
    else this.list.push(count);
  }

  skip(count: number): void {
    if (count === 0) return;
    const last = this.list.at(-1);
    if (typeof last === 'number' && last < 0) this.list[this.list.length - 1] = last - count;
    else this.list.push(-count);
  }

  insert(segment: string): void {
    this.list.push(segment);
  }

  /** The old segment as it is, its numbers replaced, or (anything else changed, or shorter so) left out for the new. */
  change(before: string, after: string): void {
    if (before === after) return this.keep(1);
    const edits = numberEdits(before, after);
    if (edits && JSON.stringify(edits).length < after.length) this.list.push(edits);
    else {
      this.skip(1);
      this.insert(after);
    }
  }
}

/** `[k, text, …]` when the two differ in their numbers only, else undefined. */
function numberEdits(before: string, after: string): (number | string)[] | undefined {
  const a = tokensOf(before);
  const b = tokensOf(after);
  if (a.length !== b.length) return undefined;
  const edits: (number | string)[] = [];
  for (let i = 0; i < b.length; i++) {
    if (a[i] === b[i]) continue;
    if (i % 2 === 0) return undefined;
    edits.push((i - 1) / 2, b[i]!);
  }
  return edits;
}

/** The new segments from the old and the operations; throws on operations that do not fit the old segments. */
export function applyDiff(old: readonly string[], ops: readonly DiffOp[]): string[] {
  const next: string[] = [];
  let cursor = 0;
  for (const op of ops) {
    if (typeof op === 'string') next.push(op);
    else if (typeof op === 'number') {
      if (!Number.isInteger(op) || op === 0 || cursor + Math.abs(op) > old.length)
        throw new Error('diff: a run past the old segments');
      if (op > 0) for (let i = 0; i < op; i++) next.push(old[cursor + i]!);
      cursor += Math.abs(op);
    } else {
      const segment = old[cursor++];
      if (segment === undefined) throw new Error('diff: a change past the old segments');
      next.push(replaceNumbers(segment, op));
    }
  }
  return next;
}

function replaceNumbers(segment: string, edits: readonly (number | string)[]): string {
  const tokens = tokensOf(segment);
  for (let i = 0; i + 1 < edits.length; i += 2) {
    const place = 2 * Number(edits[i]) + 1;
    const text = edits[i + 1];
    if (!Number.isInteger(place) || place >= tokens.length || typeof text !== 'string')
      throw new Error('diff: a number that is not in the segment');
    tokens[place] = text;
  }
  return tokens.join('');
}

/** Whether `value` has the shape of a list of operations (read back from a record). */
export function isDiff(value: unknown): value is DiffOp[] {
  return (
    Array.isArray(value) &&
    value.every(
      (op) =>
        typeof op === 'string' ||
        (typeof op === 'number' && Number.isInteger(op)) ||
        (Array.isArray(op) && op.every((part) => typeof part === 'string' || typeof part === 'number')),
    )
  );
}
