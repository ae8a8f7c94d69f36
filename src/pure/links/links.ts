// `ratefile check --links`: the links of an export's items (`<url>`, from a template's `url:`), and whether each one
// opens a page a client can use. Pure: the export's text in, links out; one fetch's facts in, a verdict out
// (src/io/links/fetch.ts makes the facts). A link that does not open a page, by these rules, in this order:
// - not an http(s) link (data:, file:, javascript:, ftp:, a relative path), as written or where a redirect points:
//   never fetched;
// - an error: no answer within the time (10 s by default), a refused connection, a bad certificate;
// - a status other than 2xx at the end of the redirects (404, 410, 500, a 403 from an anti-bot layer), or more
//   redirects than followed;
// - a redirect to the home page: followed redirects end at the site's `/` with no query, and the link was not the
//   bare home page itself (the engine did not know the direction and sent the client home);
// - a login page: the final URL's path has a login word (login, signin, sign-in, log-in, auth, wp-login.php,
//   account/login…), or the page has a password field (`<input type="password">`), or its title says log in / sign
//   in / вход / войти / авторизация.

export interface ItemLink {
  url: string;
  /** The items that carry it, as `FROM → TO` (with ` in CITY`). */
  items: string[];
}

const entities: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

function unescapeXml(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : entities[name]!,
  );
}

const element = (item: string, name: string) =>
  new RegExp(`<${name}>\\s*(?:<!\\[CDATA\\[([^]*?)\\]\\]>|([^<]*))\\s*</${name}>`).exec(item);

const valueOf = (item: string, name: string): string | undefined => {
  const match = element(item, name);
  return match ? (match[1] ?? unescapeXml(match[2] ?? '')).trim() : undefined;
};

/** Every distinct `<url>` of an XML export's items, with the items carrying it, in file order. */
export function itemLinks(text: string): ItemLink[] {
  const byUrl = new Map<string, ItemLink>();
  for (const match of text.matchAll(/<item[\s>][^]*?<\/item>/g)) {
    const item = match[0];
    const url = valueOf(item, 'url');
    if (!url) continue;
    const city = valueOf(item, 'city');
    const name = `${valueOf(item, 'from') ?? '?'} → ${valueOf(item, 'to') ?? '?'}${city ? ` in ${city}` : ''}`;
    const entry = byUrl.get(url) ?? { url, items: [] };
    entry.items.push(name);
    byUrl.set(url, entry);
  }
  return [...byUrl.values()];
}

/** What fetching one link came to (src/io/links/fetch.ts). */
export interface LinkFetch {
  /** Each URL asked, the link first; the last is where the fetch ended. */
  chain: string[];
  status?: number;
  contentType?: string;
  /** The start of the body (a bounded read), as text. */
  head?: string;
  /** A failure before an answer: timeout, network, too many redirects. */
  error?: string;
  /** The last URL of the chain is not http(s), so it was not fetched: what it is (`notWebLink`). */
  refused?: string;
  ms: number;
}

export type LinkProblem = 'not-http' | 'error' | 'http-status' | 'home-redirect' | 'login-page';

export interface LinkVerdict {
  ok: boolean;
  problem?: LinkProblem;
  detail?: string;
}

export const problemNames: Record<LinkProblem, string> = {
  'not-http': 'not an http(s) link',
  error: 'no answer',
  'http-status': 'not a 2xx status',
  'home-redirect': 'redirected to the home page',
  'login-page': 'a login page',
};

const loginPath =
  /(^|\/)(log-?in|sign-?in|auth|authori[sz]e|wp-login\.php|account\/login|user\/login|session\/new)(\/|\.|$)/i;
const loginTitle = /\b(log ?in|sign ?in)\b|вход|войти|авторизац/i;

const isHome = (url: URL) => (url.pathname === '/' || url.pathname === '') && url.search === '';

/** The title of an HTML page, when there is one. */
export const titleOf = (head: string): string | undefined =>
  /<title[^>]*>([^<]*)<\/title>/i.exec(head)?.[1]?.replace(/\s+/g, ' ').trim();

/** Why a link is no http(s) URL (`its scheme is data:, not http(s)`); undefined for an http(s) one. */
export function notWebLink(url: string): string | undefined {
  if (!URL.canParse(url)) return 'not an absolute http(s) URL';
  const { protocol } = new URL(url);
  return protocol === 'http:' || protocol === 'https:' ? undefined : `its scheme is ${protocol}, not http(s)`;
}

/** Whether one link opens a page, by the rules at the top of this file. */
export function judgeLink(fetched: LinkFetch): LinkVerdict {
  const last = fetched.chain[fetched.chain.length - 1]!;
  const via = fetched.chain.length > 1 ? ` (after ${fetched.chain.length - 1} redirect(s), at ${last})` : '';
  if (fetched.refused !== undefined) return { ok: false, problem: 'not-http', detail: `${fetched.refused}${via}` };
  if (fetched.error !== undefined) return { ok: false, problem: 'error', detail: `${fetched.error}${via}` };
  const status = fetched.status ?? 0;
  if (status < 200 || status > 299) return { ok: false, problem: 'http-status', detail: `HTTP ${status}${via}` };
  const [first, final] = [new URL(fetched.chain[0]!), new URL(last)];
  if (fetched.chain.length > 1 && isHome(final) && !isHome(first))
    return { ok: false, problem: 'home-redirect', detail: `redirected to ${last}` };
  const head = fetched.head ?? '';
  const title = titleOf(head);
  if (loginPath.test(final.pathname)) return { ok: false, problem: 'login-page', detail: `ends at ${last}` };
  if (/<input\b[^>]*\btype\s*=\s*["']?password\b/i.test(head))
    return { ok: false, problem: 'login-page', detail: `the page asks for a password${via}` };
  if (title !== undefined && loginTitle.test(title))
    return { ok: false, problem: 'login-page', detail: `the page's title is ${JSON.stringify(title)}${via}` };
  return { ok: true };
}
