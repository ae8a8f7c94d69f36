// Control characters from outside on the dashboard (issue 33, item 12): a monitor's user agent in nginx's access log
// (which writes bytes as `\xHH`, turned back into bytes by the reader) and a hand-edited pause file's reason reach
// the page, /dashboard.json and /healthz with ESC, BEL, C1 and U+202E made visible (`\u001b`), as `status` shows them.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { sampleConfig, projectsPerTest } from '../../support/project.js';
import { runRatefile } from '../../support/run-cli.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

/** C0 controls but tab and LF, DEL, C1, the line separators and the bidirectional formatting characters. */
const raw = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/u;

/** `$time_local` of nginx for a date. */
function logTime(at: Date): string {
  const month = at.toLocaleString('en', { month: 'short', timeZone: 'UTC' });
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${pad(at.getUTCDate())}/${month}/${at.getUTCFullYear()}:${pad(at.getUTCHours())}:${pad(at.getUTCMinutes())}:${pad(at.getUTCSeconds())} +0000`;
}

/** Every string in a JSON value. */
const strings = (value: unknown): string[] =>
  typeof value === 'string'
    ? [value]
    : Array.isArray(value)
      ? value.flatMap(strings)
      : value !== null && typeof value === 'object'
        ? Object.values(value).flatMap(strings)
        : [];

describe('control characters on the dashboard', () => {
  it('shows a user agent from the access log and a pause reason with ESC, BEL, C1 and U+202E escaped', async () => {
    const made = await project({
      'ratefile.config.yaml': `${sampleConfig}accessLog: access.log\nmonitors:\n  sumo: { agent: Mozilla }\n`,
    });
    // As nginx writes it: the user agent's bytes outside printable ASCII as \xHH.
    const agent = String.raw`Mozilla/5.0 \x1B]0;owned\x07 \xE2\x80\xAElmth.exe \xC2\x9B31m`;
    await made.write(
      'access.log',
      `203.0.113.7 - - [${logTime(new Date())}] "GET /parserfile.xml HTTP/1.1" 200 1234 "-" "${agent}"\n`,
    );
    await mkdir(join(made.dir, '.ratefile', 'paused'), { recursive: true });
    await writeFile(
      join(made.dir, '.ratefile', 'paused', 'BTC-SBERRUB'),
      `${JSON.stringify({ direction: 'BTC>SBERRUB', since: new Date().toISOString(), reason: 'bank \u001b[2Jblocks\u0007 \u202ecards' })}\n`,
    );
    const service = await start(made);

    const html = await (await fetch(service.base)).text();
    expect(html).not.toMatch(raw);
    expect(html).toContain(String.raw`Mozilla/5.0 \u001b]0;owned\u0007 \u202elmth.exe \u009b31m`);
    expect(html).toContain(String.raw`bank \u001b[2Jblocks\u0007 \u202ecards`);

    const text = await (await fetch(`${service.base}dashboard.json`)).text();
    expect(text).not.toMatch(raw);
    const all = strings(JSON.parse(text));
    expect(all.filter((s) => raw.test(s))).toEqual([]);
    expect(all).toContain(String.raw`Mozilla/5.0 \u001b]0;owned\u0007 \u202elmth.exe \u009b31m`);
    expect(all.some((s) => s.includes(String.raw`bank \u001b[2Jblocks\u0007 \u202ecards`))).toBe(true);

    const health = await (await fetch(`${service.base}healthz`)).text();
    expect(health).toContain('blocks');
    expect(strings(JSON.parse(health)).filter((s) => raw.test(s))).toEqual([]);

    // `status`, in text and JSON, says the same escaped.
    for (const args of [['status'], ['status', '--json']]) {
      const { stdout } = await runRatefile(args, made.dir);
      expect(stdout, args.join(' ')).toContain('blocks');
      expect(stdout, args.join(' ')).not.toMatch(raw);
    }
  });
});
