// Reading a back office's JSON file (the `file` quote source and the `file` reserve source): the one read of a
// file behind the pure JSON checks of syntax.ts.
import { RatefileError } from '../../base/errors.js';
import { readRegularFile } from '../../base/files.js';
import { jsonSyntaxError } from '../../pure/sources/syntax.js';
import { JsonBoundsError } from '../../pure/sources/json-bounds.js';
import { parseSourceJson } from '../../pure/sources/values.js';

/** The largest quotes or reserves file read, as for an HTTP answer: 10 MB is some 100,000 quotes. */
export const maxSourceFileBytes = 10 * 1024 * 1024;

/**
 * A JSON file a back office writes (quotes or reserves), read in one open so its time and text agree; numbers
 * kept as decimal text (`parseSourceJson`: nesting bounded). Fails with E_SOURCE naming the source and file: unreadable
 * or too large, nested too deep, or not JSON with the line and column on one line.
 */
export async function readJsonFile(
  source: string,
  path: string,
  what: string,
): Promise<{ data: unknown; modified: Date }> {
  let text: string;
  let modified: Date;
  try {
    // One open for time and text; a FIFO or a device in place of the file is refused, never waited on.
    const read = await readRegularFile(path, maxSourceFileBytes);
    modified = read.stats.mtime;
    text = read.text;
  } catch (cause) {
    throw new RatefileError('E_SOURCE', `${source}: cannot read ${what} file ${path}: ${(cause as Error).message}`, {
      cause,
    });
  }
  try {
    // Numbers kept as their text: a price written as a JSON number is not rounded through a float.
    return { data: parseSourceJson(text), modified };
  } catch (cause) {
    if (cause instanceof JsonBoundsError)
      throw new RatefileError('E_SOURCE', `${source}: ${path}: refused before parsing: ${cause.message}`, {
        cause,
      });
    const error = jsonSyntaxError(text);
    const where = error
      ? `line ${error.line}, column ${error.column}: ${error.problem}`
      : (cause as Error).message.replace(/\s+/g, ' ');
    throw new RatefileError('E_SOURCE', `${source}: ${path}: not valid JSON: ${where}`, { cause });
  }
}
