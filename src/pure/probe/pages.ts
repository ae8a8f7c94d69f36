// What a body is when it is not a rate file: a Cloudflare challenge, a JavaScript anti-bot page, a redirect page,
// an engine's error or maintenance page, some other HTML. Pure: the text and a few headers in, a name out.
// The markers are those of the public pages (test/fixtures/probe/README.md names the origin of each); the order
// matters, most specific first: a challenge is HTML too, and an anti-bot page also moves the browser on.

export type PageKind = 'cloudflare-challenge' | 'antibot-page' | 'redirect-page' | 'engine-error' | 'html';

export interface PageFacts {
  /** The body as text (its first part is enough). */
  text: string;
  /** `cf-mitigated`: Cloudflare's own word that the answer is a challenge (developers.cloudflare.com, "Detect a challenge page response"). */
  cfMitigated?: string;
  server?: string;
}

export interface Page {
  kind: PageKind;
  /** What gave it away, for the report: `<title>Just a moment...</title>`, `meta refresh to /x`. */
  detail: string;
}

const cloudflareMarkers: readonly [RegExp, string][] = [
  [/<title>\s*Just a moment\.\.\.\s*<\/title>/i, '<title>Just a moment...</title>'],
  [/<title>\s*Attention Required! \| Cloudflare\s*<\/title>/i, '<title>Attention Required! | Cloudflare</title>'],
  [/\bwindow\._cf_chl_opt\b/, 'window._cf_chl_opt'],
  [/\/cdn-cgi\/challenge-platform\//, '/cdn-cgi/challenge-platform/'],
  [/challenges\.cloudflare\.com/, 'challenges.cloudflare.com'],
];

// Anti-bot pages of hosts and DDoS filters: a script sets a cookie and reloads, or the vendor names itself.
const antibotVendors: readonly [RegExp, string][] = [
  [/slowAES\.decrypt|\/aes\.js["']/, 'an aes.js cookie challenge (__test cookie)'],
  [/ddos-guard/i, 'DDoS-Guard'],
  [/sucuri_cloudproxy|Sucuri WebSite Firewall/i, 'Sucuri'],
  [/stormwall/i, 'StormWall'],
  [/bitninja/i, 'BitNinja'],
  [/Checking your browser|Проверка (вашего )?браузера/i, '"Checking your browser"'],
];

const engineMarkers: readonly [RegExp, string][] = [
  [/<error>[^<]*<\/error>/i, 'an <error> document'],
  [/Briefly unavailable for scheduled maintenance/i, "WordPress's maintenance page"],
  [/Error establishing a database connection/i, "WordPress's database error"],
  [/<b>(Fatal|Parse) error<\/b>:|\b(Fatal|Parse) error: .* on line \d+/i, 'a PHP error'],
];

// Words that say "down for now": in a page's title or headline, or anywhere in a short page, not in any site's footer.
const maintenanceWords =
  /\b(maintenance|temporarily unavailable|service unavailable)\b|технические работы|техническое обслуживание|ведутся работы|временно недоступ/i;

function maintenanceNotice(text: string): string | undefined {
  const headlines = [...text.matchAll(/<(title|h1|h2)[^>]*>([^<]{1,300})</gi)].map((match) => match[2]).join('\n');
  return maintenanceWords.test(headlines) || (text.length < 8192 && maintenanceWords.test(text))
    ? 'a maintenance notice'
    : undefined;
}

const first = (text: string, markers: readonly [RegExp, string][]) =>
  markers.find(([pattern]) => pattern.test(text))?.[1];

const looksLikeHtml = (text: string) => /^\s*(<!--[^]*?-->\s*)*<(!doctype\s+html|html|head|body)[\s>]/i.test(text);

/** A redirect made by the page: `<meta http-equiv="refresh" content="0; url=…">` or a script that sets location. */
function redirectTarget(text: string): string | undefined {
  const meta = /<meta[^>]+http-equiv\s*=\s*["']?refresh["']?[^>]*>/i.exec(text)?.[0];
  const content = meta && /content\s*=\s*["']?\s*\d*\s*;?\s*url\s*=\s*['"]?([^"'>\s]+)/i.exec(meta)?.[1];
  if (content) return `meta refresh to ${content}`;
  const script =
    /(?:window\.|document\.)?location(?:\.href)?\s*=\s*["']([^"']+)["']|location\.(?:replace|assign)\(\s*["']([^"']+)["']/.exec(
      text,
    );
  const target = script?.[1] ?? script?.[2];
  return target === undefined ? undefined : `a script sends the browser to ${target}`;
}

/** What a body that is not a rate file is; undefined when it is none of these (plain text, other XML, other JSON). */
export function recognisePage(facts: PageFacts): Page | undefined {
  const { text } = facts;
  if (facts.cfMitigated?.toLowerCase() === 'challenge')
    return { kind: 'cloudflare-challenge', detail: 'cf-mitigated: challenge' };
  const cloudflare = first(text, cloudflareMarkers);
  if (cloudflare) return { kind: 'cloudflare-challenge', detail: cloudflare };
  const html = looksLikeHtml(text);
  const vendor = first(text, antibotVendors);
  if (vendor && (html || /<script/i.test(text))) return { kind: 'antibot-page', detail: vendor };
  const redirect = redirectTarget(text);
  // A script that sets a cookie and then moves on is a cookie check: a client without JavaScript never gets past it.
  if (/document\.cookie\s*=/.test(text) && (redirect || /location\.reload\(/.test(text)))
    return { kind: 'antibot-page', detail: 'a script sets a cookie and reloads the page' };
  if (/<noscript>[^]*?(enable|включите)\s+JavaScript/i.test(text) && /<script/i.test(text) && text.length < 20_000)
    return { kind: 'antibot-page', detail: 'a page that needs JavaScript' };
  if (redirect && (html || text.length < 4096)) return { kind: 'redirect-page', detail: redirect };
  // An <error> root is an engine's word (Premium Exchanger: <error>Maintenance</error>); a notice counts only in a page.
  const errorRoot = /^\s*(<\?xml[^>]*\?>\s*)?<error[\s>]/i.test(text);
  const engine = first(text, engineMarkers) ?? (html || errorRoot ? maintenanceNotice(text) : undefined);
  if (engine && (html || errorRoot || engine === 'a PHP error')) return { kind: 'engine-error', detail: engine };
  if (html) return { kind: 'html', detail: title(text) ?? 'an HTML document' };
  return undefined;
}

function title(text: string): string | undefined {
  const found = /<title[^>]*>([^<]{1,120})<\/title>/i.exec(text)?.[1]?.trim();
  return found ? `<title>${found}</title>` : undefined;
}
