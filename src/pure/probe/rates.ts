// The rates a body publishes, as one canonical text (one line per item: from, to, city, in, out, sorted), so that
// `ratefile probe` can say whether the rates differed between fetches whatever else in the body changed. Pure; reads only
// what the checker has already accepted, and stops at a bounded number of items.

const MAX_ITEMS = 100_000;

const element = (item: string, name: string) => new RegExp(`<${name}>\\s*([^<]*?)\\s*</${name}>`).exec(item)?.[1] ?? '';

function xmlRates(text: string): string[] {
  const lines: string[] = [];
  for (const match of text.matchAll(/<item[\s>][^]*?<\/item>/g)) {
    const item = match[0];
    lines.push(
      [
        element(item, 'from'),
        element(item, 'to'),
        element(item, 'city'),
        element(item, 'in'),
        element(item, 'out'),
      ].join(' '),
    );
    if (lines.length >= MAX_ITEMS) break;
  }
  return lines;
}

/** jsons.info 1.3: `exchange → from number → to → to number → rate` (a number, or an object with `xr`), codes in `currencies.list`. */
function jsonRates(text: string): string[] {
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch {
    return [];
  }
  const record = (value: unknown): Record<string, unknown> =>
    value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  const root = record(document);
  const codes = record(record(root.currencies).list);
  const code = (number: string) => String(codes[number] ?? number);
  const lines: string[] = [];
  for (const [from, entry] of Object.entries(record(root.exchange))) {
    for (const [to, rate] of Object.entries(record(record(entry).to))) {
      const details = record(rate);
      const xr = typeof rate === 'object' ? details.xr : rate;
      const cities = Array.isArray(details.cities) ? details.cities.join(',') : '';
      lines.push([code(from), code(to), cities, String(xr)].join(' '));
      if (lines.length >= MAX_ITEMS) return lines;
    }
  }
  return lines;
}

/** The rates of a body of a known format, as one text to compare or digest. */
export function ratesOf(text: string, format: 'classic' | 'eref' | 'json'): string {
  return (format === 'json' ? jsonRates(text) : xmlRates(text)).sort().join('\n');
}
