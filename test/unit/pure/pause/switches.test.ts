// `ratefile pause` / `resume`: pause files in the state folder, read by every build; a paused direction is
// withheld with its reason, kind `paused`, shown apart in status, and never a fault for health.
import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPauses } from '../../../../src/pure/pause/switches.js';
import { loadConfig } from '../../../../src/io/config/load.js';
import { projectsPerTest } from '../../../support/project.js';
import { fixedNow, runRatefile } from '../../../support/run-cli.js';

const project = projectsPerTest();
/** `FROM>TO` or `FROM>TO@CITY` per published item. */
const items = async (dir: string, file = 'parserfile.xml') =>
  [...(await readFile(join(dir, 'public', file), 'utf8')).matchAll(/<item>([\s\S]*?)<\/item>/g)].map((m) => {
    const tag = (name: string) => new RegExp(`<${name}>(\\w+)</${name}>`).exec(m[1]!)?.[1];
    return `${tag('from')}>${tag('to')}${tag('city') ? `@${tag('city')}` : ''}`;
  });

describe('ratefile pause and resume', () => {
  it('withholds a paused direction with its reason, lists it as paused in status, health stays ok; resume publishes it again', async () => {
    const made = await project();
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await items(made.dir)).toContain('BTC>SBERRUB');

    const paused = await runRatefile(['pause', 'BTC', 'SBERRUB', '--reason', 'bank blocks cards'], made.dir);
    expect(paused).toMatchObject({ code: 0, stdout: 'paused BTC → SBERRUB: the next build withholds it\n' });
    expect(await readdir(join(made.dir, '.ratefile', 'paused'))).toEqual(['BTC-SBERRUB']);
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await items(made.dir)).not.toContain('BTC>SBERRUB');

    const status = await runRatefile(['status'], made.dir);
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/^ok\n/);
    expect(status.stdout).toContain(
      'paused: 1\n  BTC → SBERRUB: paused: bank blocks cards (since 2026-11-21T12:00:30.000Z)\nheld back: 0\n',
    );
    const json = JSON.parse((await runRatefile(['status', '--json'], made.dir)).stdout) as {
      level: string;
      heldBack: unknown[];
    };
    expect(json.level).toBe('ok');
    expect(json.heldBack).toEqual([
      {
        direction: 'BTC>SBERRUB',
        kind: 'paused',
        reason: 'paused: bank blocks cards (since 2026-11-21T12:00:30.000Z)',
      },
    ]);

    expect(await runRatefile(['resume', 'BTC', 'SBERRUB'], made.dir)).toMatchObject({
      code: 0,
      stdout: 'resumed BTC → SBERRUB: the next build publishes it again\n',
    });
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await items(made.dir)).toContain('BTC>SBERRUB');
    expect(await runRatefile(['resume', 'BTC', 'SBERRUB'], made.dir)).toMatchObject({
      code: 1,
      stdout: 'BTC → SBERRUB is not paused: nothing to resume\n',
    });
  });

  it('pauses one city of a cash direction; the others stay published', async () => {
    const made = await project();
    expect((await runRatefile(['pause', 'USDTTRC20', 'CASHRUB', '--city', 'MSK'], made.dir)).code).toBe(0);
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    const published = await items(made.dir);
    expect(published).toContain('USDTTRC20>CASHRUB@SPB');
    expect(published).not.toContain('USDTTRC20>CASHRUB@MSK');
    expect((await runRatefile(['status'], made.dir)).stdout).toContain(
      '  USDTTRC20 → CASHRUB: paused in MSK: paused (since 2026-11-21T12:00:30.000Z); published for SPB\n',
    );
    expect((await runRatefile(['resume', 'USDTTRC20', 'CASHRUB', '--city', 'MSK'], made.dir)).code).toBe(0);
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await items(made.dir)).toContain('USDTTRC20>CASHRUB@MSK');
  });

  it('--until ends the pause by itself', async () => {
    const made = await project();
    expect((await runRatefile(['pause', 'BTC', 'SBERRUB', '--until', '2h'], made.dir)).stdout).toBe(
      'paused BTC → SBERRUB until 2026-11-21T14:00:30.000Z: the next build withholds it\n',
    );
    expect((await runRatefile(['build'], made.dir)).code).toBe(0);
    expect(await items(made.dir)).not.toContain('BTC>SBERRUB');
    const later = () => new Date('2026-11-21T14:00:30Z');
    expect((await runRatefile(['build'], made.dir, { now: later })).code).toBe(0);
    expect(await items(made.dir)).toContain('BTC>SBERRUB');
  });

  it('refuses an unknown direction or city, a past or malformed --until, a multi-line reason: exit 2, nothing written', async () => {
    const made = await project();
    const refused = async (args: string[], message: RegExp) => {
      const result = await runRatefile(args, made.dir);
      expect(result.code, result.stderr).toBe(2);
      expect(result.stderr).toMatch(message);
    };
    await refused(['pause', 'BTC', 'CASHRUB'], /no direction "BTC>CASHRUB"/);
    await refused(['pause', 'USDTTRC20', 'CASHRUB', '--city', 'KZN'], /has no city "KZN": its cities are MSK, SPB/);
    await refused(
      ['pause', 'BTC', 'SBERRUB', '--until', '2026-11-21T11:00:00Z'],
      /--until: "2026-11-21T11:00:00Z" is not in the future/,
    );
    await refused(['pause', 'BTC', 'SBERRUB', '--until', 'tomorrow'], /--until: expected a time like/);
    await refused(['pause', 'BTC', 'SBERRUB', '--reason', 'a\nb'], /--reason: expected one line/);
    await expect(readdir(join(made.dir, '.ratefile', 'paused'))).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('applyPauses keeps a direction whose pause has ended and one paused in a city it does not have', async () => {
    const made = await project();
    const config = await loadConfig(made.configPath);
    const now = fixedNow();
    const result = applyPauses(
      config.directions,
      [
        { direction: 'BTC>SBERRUB', since: '2026-11-21T10:00:00Z', until: now.toISOString() },
        { direction: 'BTC>USDTTRC20', city: 'MSK', since: '2026-11-21T10:00:00Z' },
        {
          direction: 'SBERRUB>USDTTRC20',
          since: '2026-11-21T10:00:00Z',
          until: '2026-11-21T12:00:31Z',
          reason: 'wallet refill',
        },
      ],
      now,
    );
    expect(result.directions.map((d) => d.id)).toEqual(['BTC>SBERRUB', 'BTC>USDTTRC20', 'USDTTRC20>CASHRUB']);
    expect(result.withheld).toMatchObject([
      {
        direction: { id: 'SBERRUB>USDTTRC20' },
        kind: 'paused',
        reason: 'paused: wallet refill until 2026-11-21T12:00:31Z (since 2026-11-21T10:00:00Z)',
      },
    ]);
  });
});
