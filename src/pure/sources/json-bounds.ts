// Bounds on a source's JSON, checked before it is parsed, piece by piece as it arrives (issue 33: 5,000,000 `[` in a
// 10 MB answer cost JSON.parse 0.6–0.9 GB and a 10 s stall). One linear pass that allocates nothing: strings are
// skipped with their escapes, so a "[" inside one counts for nothing. Pure.

/**
 * What a source's JSON may hold. Nesting: the deepest answer of any API ratefile reads nests 4 levels (its exports
 * 6); 64 leaves room for any venue a `json` source points at. Values (containers and the items after each comma):
 * JSON.parse costs some 150 bytes each; 500,000 keep one answer under about 100 MB, and are some 55,000 API v2 rows
 * in one batch of 490 pairs (BestChange lists about 200,000 rows for all pairs together), or 100 times Binance's
 * every symbol.
 */
export interface JsonBounds {
  maxDepth: number;
  maxValues: number;
}
export const sourceJsonBounds: Readonly<JsonBounds> = { maxDepth: 64, maxValues: 500_000 };

/** A JSON text past its bounds: refused before parsing. */
export class JsonBoundsError extends SyntaxError {
  constructor(problem: string) {
    super(problem);
    this.name = 'JsonBoundsError';
  }
}

const count = (n: number) => n.toLocaleString('en-US');

/** Fed a JSON text in pieces (bytes as they arrive, or text); throws JsonBoundsError at the first piece past the bounds. */
export class JsonBoundsScan {
  #depth = 0;
  #values = 0;
  #inString = false;
  #escaped = false;
  /** Characters (or bytes) seen before the current piece, for the position in a message. */
  #seen = 0;

  constructor(readonly bounds: Readonly<JsonBounds> = sourceJsonBounds) {}

  /** Bytes: every character that matters is ASCII, and no byte of a multi-byte UTF-8 character is below 0x80. */
  feed(piece: Uint8Array | string): void {
    const text = typeof piece === 'string';
    const length = piece.length;
    for (let i = 0; i < length; i++) {
      const c = text ? piece.charCodeAt(i) : (piece as Uint8Array)[i]!;
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (c === 0x5c /* \ */) this.#escaped = true;
        else if (c === 0x22 /* " */) this.#inString = false;
      } else if (c === 0x22) {
        this.#inString = true;
      } else if (c === 0x5b /* [ */ || c === 0x7b /* { */) {
        if (++this.#depth > this.bounds.maxDepth)
          throw new JsonBoundsError(
            `JSON nested more than ${this.bounds.maxDepth} levels deep (level ${this.#depth} opens at character ${this.#seen + i + 1}); expected at most ${this.bounds.maxDepth}`,
          );
        this.#value(i);
      } else if (c === 0x5d /* ] */ || c === 0x7d /* } */) {
        this.#depth--;
      } else if (c === 0x2c /* , */) {
        this.#value(i);
      }
    }
    this.#seen += length;
  }

  #value(i: number): void {
    if (++this.#values > this.bounds.maxValues)
      throw new JsonBoundsError(
        `JSON of more than ${count(this.bounds.maxValues)} values (the next at character ${this.#seen + i + 1}); expected at most ${count(this.bounds.maxValues)}`,
      );
  }
}

/** Throws JsonBoundsError when `text` is past the bounds. */
export function checkJsonBounds(text: string, bounds: Readonly<JsonBounds> = sourceJsonBounds): void {
  new JsonBoundsScan(bounds).feed(text);
}
