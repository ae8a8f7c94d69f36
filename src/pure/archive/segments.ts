// An export's text cut into segments the archive diffs one by one: an XML file at each `<item` (and its root's end
// tag), any other file (JSON, Premium's text, the archive's own state lines) at each line. Pure, and exact: the
// segments joined are the text again, byte for byte, and a segment's tokens joined are the segment.

/** A number as written: digits with at most one decimal point; the capture keeps it in `split`'s result. */
export const NUMBER = /([0-9]+(?:\.[0-9]+)?)/;
const NUMBERS = /[0-9]+(?:\.[0-9]+)?/g;

/**
 * The segments of a text: never empty strings (an empty text has none). Cut by hand with indexOf, not a regular
 * expression's split: an export of 10,000 directions is 3 MB, cut at every build.
 */
export function segmentsOf(text: string): string[] {
  if (text === '') return [];
  return text.startsWith('<') ? xmlSegments(text) : lineSegments(text);
}

/** Before each line that opens an `<item` (white space before it on its line), and before the root's end tag. */
function xmlSegments(text: string): string[] {
  const cuts: number[] = [];
  for (let at = text.indexOf('<item'); at >= 0; at = text.indexOf('<item', at + 5)) {
    const after = text.charCodeAt(at + 5);
    // `<item>`, `<item attr…` or `<item/>`, not `<items>`.
    if (after !== 62 && after !== 32 && after !== 9 && after !== 10 && after !== 13 && after !== 47) continue;
    let line = at - 1;
    while (line >= 0 && (text.charCodeAt(line) === 32 || text.charCodeAt(line) === 9)) line--;
    if (line >= 0 && text.charCodeAt(line) === 10) cuts.push(line);
  }
  const end = rootEnd(text);
  if (end !== undefined && (cuts.length === 0 || end > cuts.at(-1)!)) cuts.push(end);
  const segments: string[] = [];
  let start = 0;
  for (const cut of cuts) {
    if (cut > start) segments.push(text.slice(start, cut));
    start = cut;
  }
  segments.push(text.slice(start));
  return segments;
}

/** Where the last line, an end tag alone (`</rates>`) with only white space after it, starts (its newline). */
function rootEnd(text: string): number | undefined {
  let end = text.length;
  while (end > 0 && /\s/.test(text[end - 1]!)) end--;
  const line = text.lastIndexOf('\n', end - 1);
  return line >= 0 && /^<\/[A-Za-z][\w.-]*>$/.test(text.slice(line + 1, end)) ? line : undefined;
}

function lineSegments(text: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (let at = text.indexOf('\n'); at >= 0; at = text.indexOf('\n', start)) {
    segments.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (start < text.length) segments.push(text.slice(start));
  return segments;
}

/** A segment as text and numbers in turn: the odd places are its numbers (`"<in>1.5</in>"` → `["<in>", "1.5", "</in>"]`). */
export const tokensOf = (segment: string): string[] => segment.split(NUMBER);

/** What a segment is apart from its numbers: two items of one direction whose rate moved have the same key. */
export const skeletonOf = (segment: string): string => segment.replace(NUMBERS, '#');
