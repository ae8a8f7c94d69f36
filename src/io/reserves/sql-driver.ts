// What the `sql` source needs of a database driver (postgres, mysql): one read-only query on one connection that is
// closed afterwards, the rows as they came, and failures in words. A deadline of the source's timeout covers the
// whole read and destroys the socket when it passes, so a server that hangs cannot hold a build or the process.

export interface SqlColumn {
  name: string;
  /** The column's type name when it is a binary floating-point type (not exact money); otherwise undefined. */
  float?: string;
}

export interface SqlRows {
  columns: SqlColumn[];
  /** Cells by column: decimal and big integer values as text, booleans, dates, null. */
  rows: unknown[][];
}

export interface SqlRead {
  url: URL;
  query: string;
  params: readonly (string | number | boolean)[];
  timeoutMs: number;
  signal: AbortSignal;
}

export type SqlDriver = (read: SqlRead) => Promise<SqlRows>;

/** A failure of a read, already in words (`cannot connect: connection refused`); credentials are cut later. */
export class SqlProblem extends Error {}

const networkWords: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset by the server',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found (DNS lookup failed)',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  EPIPE: 'connection closed by the server',
};

/** A Node network error in words, or undefined when it is not one. */
function networkProblem(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? networkWords[code] : undefined;
}

/**
 * One read on one connection: `work` under the deadline (it names each phase it enters), any failure in words —
 * the driver's own for the errors it knows (`known`), else the network error or the driver's message after
 * `cannot connect:` or `query failed:` — and the connection destroyed at the end whatever happened.
 */
export async function readOnce(
  read: SqlRead,
  destroy: () => void,
  known: (error: unknown) => string | undefined,
  work: (enter: (phase: string) => void) => Promise<SqlRows>,
): Promise<SqlRows> {
  let phase = 'connecting';
  try {
    return await withDeadline(
      read,
      destroy,
      () => phase,
      () => work((next) => (phase = next)),
    );
  } catch (error) {
    if (error instanceof SqlProblem) throw error;
    const text = networkProblem(error) ?? (error instanceof Error ? error.message : String(error));
    throw new SqlProblem(known(error) ?? `${phase === 'connecting' ? 'cannot connect' : 'query failed'}: ${text}`);
  } finally {
    destroy();
  }
}

/**
 * Run `work` until it settles or `timeoutMs` (or `signal`) ends it: then `destroy` the connection and fail with
 * `timed out after N ms (while <phase>)`. `phase()` says what the read was doing.
 */
async function withDeadline<T>(
  read: Pick<SqlRead, 'timeoutMs' | 'signal'>,
  destroy: () => void,
  phase: () => string,
  work: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort: (() => void) | undefined;
  const ended = new Promise<never>((_resolve, reject) => {
    const end = (why: string) => {
      destroy();
      reject(new SqlProblem(`${why} (while ${phase()})`));
    };
    timer = setTimeout(() => end(`timed out after ${read.timeoutMs} ms`), read.timeoutMs);
    onAbort = () => end('stopped');
    if (read.signal.aborted) onAbort();
    else read.signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work(), ended]);
  } finally {
    clearTimeout(timer);
    if (onAbort) read.signal.removeEventListener('abort', onAbort);
  }
}
