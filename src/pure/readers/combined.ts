// One line of an access log in nginx's `combined` format (the one deploy/nginx.conf writes), read into what a fetch
// record needs. Pure. nginx writes `"`, `\` and bytes outside printable ASCII in variables as `\xHH`
// (https://nginx.org/en/docs/http/ngx_http_log_module.html#log_format, `escape=default`).

export interface LogLine {
  at: number;
  address: string;
  method: string;
  /** The request target's path, without its query. */
  path: string;
  status: number;
  bytes: number;
  agent: string;
}

/** The longest line read: a longer one is no fetch of ours (a request line that long is refused by nginx anyway). */
export const MAX_LINE = 16 * 1024;

const quoted = '"((?:[^"\\\\]|\\\\.)*)"';
const combined = new RegExp(
  `^(\\S+) \\S+ \\S+ \\[([^\\]]+)\\] ${quoted} (\\d{3}) (\\d+|-) ${quoted} ${quoted}(?:\\s|$)`,
);
const months = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const timePattern = /^(\d{2})\/([A-Z][a-z]{2})\/(\d{4}):(\d{2}):(\d{2}):(\d{2}) ([+-])(\d{2})(\d{2})$/;

/** `$time_local`, `26/Nov/2026:01:40:00 +0300`, as ms since the epoch. */
export function parseLogTime(text: string): number | undefined {
  const match = timePattern.exec(text);
  if (!match) return undefined;
  const [, day, month, year, hour, minute, second, sign, zoneHours, zoneMinutes] = match;
  const index = months.indexOf(month!);
  if (index === -1) return undefined;
  const offset = (Number(zoneHours) * 60 + Number(zoneMinutes)) * 60_000 * (sign === '-' ? -1 : 1);
  const utc = Date.UTC(Number(year), index, Number(day), Number(hour), Number(minute), Number(second));
  return Number.isNaN(utc) ? undefined : utc - offset;
}

/** nginx's `\xHH` escapes undone (as Latin-1 bytes read as UTF-8 where they form it). */
function unescape(text: string): string {
  if (!text.includes('\\')) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text[i] === '\\' && text[i + 1] === 'x' ? /^[0-9A-Fa-f]{2}$/.exec(text.slice(i + 2, i + 4)) : null;
    if (hex) {
      bytes.push(Number.parseInt(hex[0], 16));
      i += 3;
    } else bytes.push(...Buffer.from(text[i]!, 'utf8'));
  }
  return Buffer.from(bytes).toString('utf8');
}

/** A combined-format line, or undefined when the line is not one (another format, cut, garbage). */
export function parseCombinedLine(line: string): LogLine | undefined {
  if (line.length > MAX_LINE) return undefined;
  const match = combined.exec(line);
  if (!match) return undefined;
  const [, address = '', time = '', request = '', status = '', bytes = '', , agent = ''] = match;
  const at = parseLogTime(time);
  // `GET /parserfile.xml HTTP/1.1`; a request nginx could not parse is logged as it came (or `-`).
  const parts = unescape(request).split(' ');
  if (at === undefined || parts.length < 2) return undefined;
  const [method = '', target = ''] = parts;
  const path = target.replace(/^https?:\/\/[^/?#]*/i, '').split('?', 1)[0] ?? '';
  return {
    at,
    address,
    method,
    path,
    status: Number(status),
    bytes: bytes === '-' ? 0 : Number(bytes),
    agent: agent === '-' ? '' : unescape(agent),
  };
}
