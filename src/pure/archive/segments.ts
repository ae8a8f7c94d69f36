// An export's text cut into segments the archive diffs one by one: an XML file at each `<item` (and its root's end
// tag), any other file (JSON, Premium's text, the archive's own state lines) at each line. Pure, and exact: the
// segments joined are the text again, byte for byte, and a segment's tokens joined are the segment.

/** Before each `<item` line and before the root's end tag at the end of the file. */
const XML_CUTS = /(?=\n[ \t]*<item[\s>/])|(?=\n<\/[A-Za-z][\w.-]*>\s*$)/;
/** After each newline (the newline stays with its line). */
const LINE_CUTS = /(?<=\n)/;
/** A number as written: digits with at most one decimal point; the capture keeps it in `split`'s result. */
export const NUMBER = /([0-9]+(?:\.[0-9]+)?)/;
const NUMBERS = /[0-9]+(?:\.[0-9]+)?/g;

/** The segments of a text: never empty strings (an empty text has none). */
export function segmentsOf(text: string): string[] {
  if (text === '') return [];
  return text.startsWith('<') ? text.split(XML_CUTS) : text.split(LINE_CUTS).filter((part) => part !== '');
}

/** A segment as text and numbers in turn: the odd places are its numbers (`"<in>1.5</in>"` → `["<in>", "1.5", "</in>"]`). */
export const tokensOf = (segment: string): string[] => segment.split(NUMBER);

/** What a segment is apart from its numbers: two items of one direction whose rate moved have the same key. */
export const skeletonOf = (segment: string): string => segment.replace(NUMBERS, '#');
