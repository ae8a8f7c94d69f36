// `ratefile check --links`: each item's link fetched as a client's browser would open it, bounded: a few at a time
// (4 by default), one timer per link for the whole fetch with its redirects (10 s by default), redirects followed by
// hand (5 at most, each recorded; one that is not http(s), as written or where a redirect points, is never
// fetched), and only the first 256 KiB of a page read (enough for its title and a login
// form). The verdicts are src/pure/links/links.ts's.
import { hostAndPort } from '../../base/requests.js';
import { performance } from 'node:perf_hooks';
import { judgeLink, notWebLink, type ItemLink, type LinkFetch, type LinkVerdict } from '../../pure/links/links.js';

export interface LinkOptions {
  fetch: typeof globalThis.fetch;
  userAgent: string;
  timeoutMs: number;
  concurrency: number;
  maxRedirects?: number;
  maxBytes?: number;
}

const describe = (cause: unknown): string => {
  const error = cause as Error & { cause?: { code?: string; message?: string } };
  return error.cause?.code ?? error.cause?.message ?? error.message ?? String(cause);
};

/** The first `maxBytes` of a body, as text; the rest is never read. */
async function readHead(response: Response, maxBytes: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < maxBytes) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    await reader.cancel().catch(() => undefined);
  }
  return Buffer.concat(chunks).subarray(0, maxBytes).toString('utf8');
}

/** One link: its redirects followed by hand, the final answer's status, type and the start of its page. */
export async function fetchLink(url: string, options: LinkOptions): Promise<LinkFetch> {
  const started = performance.now();
  const signal = AbortSignal.timeout(options.timeoutMs);
  const chain = [url];
  const ms = () => Math.round(performance.now() - started);
  try {
    for (;;) {
      const current = chain[chain.length - 1]!;
      const refused = notWebLink(current);
      if (refused !== undefined) return { chain, refused, ms: ms() };
      const response = await options.fetch(current, {
        redirect: 'manual',
        signal,
        headers: { 'User-Agent': options.userAgent, Accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
      });
      const location = response.headers.get('location');
      if (response.status >= 300 && response.status < 400 && location) {
        await response.body?.cancel();
        if (chain.length > (options.maxRedirects ?? 5))
          return { chain, error: `more than ${options.maxRedirects ?? 5} redirects`, ms: ms() };
        chain.push(new URL(location, current).href);
        continue;
      }
      const head = await readHead(response, options.maxBytes ?? 262_144);
      const type = response.headers.get('content-type');
      return { chain, status: response.status, ...(type ? { contentType: type } : {}), head, ms: ms() };
    }
  } catch (cause) {
    const error = signal.aborted ? `no answer within ${options.timeoutMs / 1000} s` : describe(cause);
    return { chain, error: `${error} (${hostAndPort(chain[chain.length - 1]!)})`, ms: ms() };
  }
}

export interface CheckedLink extends ItemLink, LinkVerdict {
  fetched: LinkFetch;
}

/** Every link, `concurrency` at a time; `onDone` hears of each as it ends. Results in the links' order. */
export async function checkLinks(
  links: readonly ItemLink[],
  options: LinkOptions,
  onDone: (checked: CheckedLink) => void = () => {},
): Promise<CheckedLink[]> {
  const results: CheckedLink[] = new Array(links.length);
  let next = 0;
  const worker = async () => {
    while (next < links.length) {
      const index = next++;
      const link = links[index]!;
      const fetched = await fetchLink(link.url, options);
      results[index] = { ...link, ...judgeLink(fetched), fetched };
      onDone(results[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, links.length)) }, worker));
  return results;
}
