// The one interface every reserve source implements (file, http, sql): it returns the back office's
// entries by key (a currency code) as they came, and when they were valid. Checking an entry is shared (entry.ts).
import type { z } from 'zod';
import type { SourceContext } from './source.js';

/** What a reserve source read: code → raw entry (`"5000"`, or `{ reserve, min, max, enabled }`), and their time. */
export interface ReserveReading {
  entries: ReadonlyMap<string, unknown>;
  /** When the back office says the reserves were valid; otherwise when they were read (a file: its mtime). */
  time: Date;
}

export interface ReserveSourceDefinition<Options extends { type: string } = { type: string }> {
  type: Options['type'];
  /** Schema of the reserve source's config block, `type` included; unknown keys are errors. */
  options: z.ZodType<Options>;
  /** Throws (E_SOURCE) when nothing can be read; the message never holds a credential. */
  fetchReserves(options: Options, context: SourceContext): Promise<ReserveReading>;
}

export function defineReserveSource<Options extends { type: string }>(
  definition: ReserveSourceDefinition<Options>,
): ReserveSourceDefinition<Options> {
  return definition;
}

/** Per reserve source: the reading to use, or why there is none. */
export type ReserveBook = ReadonlyMap<string, ReserveReading | { error: string }>;
