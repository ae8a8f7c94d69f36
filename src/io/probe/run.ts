// `ratefile probe`'s sequence: N plain fetches one after another (an optional pause between them), then one conditional
// re-fetch per validator the server sent (If-None-Match, If-Modified-Since), all under one overall deadline: what
// the deadline leaves undone is reported as not made, never waited for.
import { fetchOnce } from './fetch.js';
import {
  cameWhole,
  monitorTimeouts,
  type ContentTypeRule,
  type MonitorTimeout,
  type RateFormat,
} from '../../pure/probe/classify.js';
import { describeFetch, type ProbeFetch } from '../../pure/probe/summary.js';
import type { LocalCopy } from '../../pure/probe/cache.js';

export interface ProbeOptions {
  count: number;
  pauseMs: number;
  timeoutMs: number;
  deadlineMs: number;
  maxBytes: number;
  maxRedirects: number;
  userAgent: string;
  format?: RateFormat;
  /** The monitors' timeouts each fetch is judged against (default: the shipped ones, `monitorTimeouts`). */
  timeouts?: readonly MonitorTimeout[];
  /** The Content-Types the monitors' robots accept (the profiles' `contentType`): another is `refused-type`. */
  contentTypes?: readonly ContentTypeRule[];
  /** Beside the config: the export as last published here, read again after each fetch (a build may publish meanwhile). */
  local?: () => Promise<LocalCopy | undefined>;
}

const notMade = (index: number, conditional?: ProbeFetch['conditional']): ProbeFetch =>
  describeFetch(
    index,
    {
      ms: 0,
      redirects: [],
      error: { kind: 'not-made', message: 'the overall deadline (--deadline) passed before it' },
    },
    undefined,
    conditional,
  );

function pause(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** Probe `url`; `onFetch` hears of each fetch as it ends (the text report prints it at once). */
export async function runProbe(
  url: URL,
  options: ProbeOptions,
  onFetch: (fetch: ProbeFetch) => void = () => {},
): Promise<ProbeFetch[]> {
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), options.deadlineMs);
  const fetches: ProbeFetch[] = [];
  const record = (fetch: ProbeFetch) => {
    fetches.push(fetch);
    onFetch(fetch);
  };
  const fetchOptions = {
    userAgent: options.userAgent,
    timeoutMs: options.timeoutMs,
    maxBytes: options.maxBytes,
    maxRedirects: options.maxRedirects,
    signal: deadline.signal,
  };
  const one = async (index: number, conditional?: ProbeFetch['conditional']) => {
    if (index > 1) await pause(options.pauseMs, deadline.signal);
    if (deadline.signal.aborted) return record(notMade(index, conditional));
    const headers = conditional ? { [conditional.header]: conditional.value } : {};
    const fetched = await fetchOnce(url, { ...fetchOptions, headers });
    const local = await options.local?.();
    const timeouts = options.timeouts ?? monitorTimeouts;
    record(describeFetch(index, fetched, options.format, conditional, timeouts, local, options.contentTypes));
  };
  try {
    for (let index = 1; index <= options.count; index++) await one(index);
    // The validators of the last rate file (in time or not), each asked alone: a server may honour one and not the other.
    const last = fetches.filter(cameWhole).pop();
    const validators = [
      ...(last?.etag === undefined ? [] : [{ header: 'If-None-Match' as const, value: last.etag }]),
      ...(last?.lastModified === undefined ? [] : [{ header: 'If-Modified-Since' as const, value: last.lastModified }]),
    ];
    for (const conditional of validators) await one(fetches.length + 1, conditional);
    return fetches;
  } finally {
    clearTimeout(timer);
  }
}
