// What changed between two versions of an export, segment by segment (segments.ts), as a list of operations that
// turn the old segments into the new ones exactly. Pure. A segment whose numbers alone moved is written as those
// numbers; anything else as its new text. The archive keeps these between its keyframes (src/io/archive/recorder.ts).

import { skeletonOf } from './segments.js';

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
    if (edits && editsLength(edits) < after.length) this.list.push(edits);
    else {
      this.skip(1);
      this.insert(after);
    }
  }
}

/**
 * `[k, text, …]` when the two differ in their numbers only, else undefined. Both are walked side by side without
 * splitting them (a build of 10,000 directions compares some 12,000 changed items).
 */
function numberEdits(before: string, after: string): (number | string)[] | undefined {
  const edits: (number | string)[] = [];
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < before.length && j < after.length) {
    if (isDigit(before.charCodeAt(i)) && isDigit(after.charCodeAt(j))) {
      const endBefore = numberEnd(before, i);
      const endAfter = numberEnd(after, j);
      if (endBefore - i !== endAfter - j || before.slice(i, endBefore) !== after.slice(j, endAfter))
        edits.push(k, after.slice(j, endAfter));
      k++;
      i = endBefore;
      j = endAfter;
    } else if (before.charCodeAt(i) === after.charCodeAt(j) && !isDigit(before.charCodeAt(i))) {
      i++;
      j++;
    } else return undefined;
  }
  return i === before.length && j === after.length ? edits : undefined;
}

/** About what the edits take in JSON: each number, its quotes and commas, and its place. */
function editsLength(edits: readonly (number | string)[]): number {
  let length = 2;
  for (const part of edits) length += typeof part === 'string' ? part.length + 3 : 4;
  return length;
}

const isDigit = (code: number) => code >= 48 && code <= 57;

/** Where the number starting at `at` ends: digits, then at most one point followed by digits (as NUMBER reads it). */
function numberEnd(text: string, at: number): number {
  let end = at;
  while (isDigit(text.charCodeAt(end))) end++;
  if (text.charCodeAt(end) === 46 && isDigit(text.charCodeAt(end + 1))) {
    end++;
    while (isDigit(text.charCodeAt(end))) end++;
  }
  return end;
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

/** The segment with its k-th numbers replaced, walked as numberEdits reads it. */
function replaceNumbers(segment: string, edits: readonly (number | string)[]): string {
  const parts: string[] = [];
  let start = 0;
  let k = 0;
  let at = 0;
  for (let e = 0; e + 1 < edits.length; e += 2) {
    const wanted = edits[e];
    const text = edits[e + 1];
    if (typeof wanted !== 'number' || typeof text !== 'string')
      throw new Error('diff: a number that is not in the segment');
    // On to the start of the wanted number.
    for (;;) {
      while (at < segment.length && !isDigit(segment.charCodeAt(at))) at++;
      if (at >= segment.length) throw new Error('diff: a number that is not in the segment');
      if (k === wanted) break;
      at = numberEnd(segment, at);
      k++;
    }
    parts.push(segment.slice(start, at), text);
    at = numberEnd(segment, at);
    start = at;
    k++;
  }
  parts.push(segment.slice(start));
  return parts.join('');
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
