// Quotes that expire (issue 23, defect 10): the starter's example quotes pass their 5-minute maxAge and the dashboard
// shows the source STALE with what renews them; the first log lines of `start` say when quotes expire, for the starter
// and for the demo (whose fixed snapshot never does).
import { cp, mkdtemp, rm, stat, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeStarter } from '../../../src/commands/init.js';
import type { SourceView } from '../../../src/service/dashboard/model.js';
import { repoRoot } from '../../support/process.js';
import type { Project } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const start = servicesPerTest();
const folders: string[] = [];
afterEach(async () => {
  await Promise.all(folders.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function folder(): Promise<Project> {
  const dir = await mkdtemp(join(tmpdir(), 'ratefile-fresh-'));
  folders.push(dir);
  return {
    dir,
    configPath: join(dir, 'ratefile.config.yaml'),
    remove: () => rm(dir, { recursive: true, force: true }),
  } as Project;
}

const sourcesOf = async (base: string) =>
  ((await (await fetch(new URL('dashboard.json', base))).json()) as { sources: SourceView[] }).sources;

describe('quotes past maxAge', () => {
  it('the starter: the first lines of start say when its example quotes expire and how to renew them', async () => {
    const made = await folder();
    await writeStarter(made.dir);
    const written = (await stat(join(made.dir, 'quotes.json'))).mtime;
    let log = '';
    await start(made, { now: () => new Date(written.getTime() + 10_000), log: (text) => (log += text) });
    const [, note] = / info (source backoffice: .*)\n/.exec(log) ?? [];
    expect(note).toBe(
      `source backoffice: the quotes of quotes.json are used until they are 5 min old (maxAge), the oldest passes it at ${new Date(written.getTime() + 300_000).toISOString()}, in 5 min; ` +
        'to keep them in use, rewrite quotes.json with fresh quotes (new "time" values; a quote without a "time" is as old as the file, so `touch quotes.json` renews it), or raise the source\'s maxAge ("off": no limit)',
    );
    // The note comes with the first lines: right after the serving line.
    const lines = log.split('\n');
    expect(lines.findIndex((line) => line.includes('source backoffice:'))).toBe(
      lines.findIndex((line) => line.includes(' serving ')) + 1,
    );
  });

  it('after a slow first build the note is told at the clock of the line, never naming a moment already past', async () => {
    const made = await folder();
    await writeStarter(made.dir);
    const written = (await stat(join(made.dir, 'quotes.json'))).mtime;
    // The build reads the clock 10 s after the quotes were written; the first lines are logged 4 min 50 s later.
    let now = new Date(written.getTime() + 10_000);
    let log = '';
    const write = (text: string) => {
      log += text;
      if (text.includes(' serving ')) now = new Date(written.getTime() + 290_000);
    };
    await start(made, { now: () => now, log: write });
    const [, note] = / info (source backoffice: .*)\n/.exec(log) ?? [];
    expect(note).toContain(`the oldest passes it at ${new Date(written.getTime() + 300_000).toISOString()}, in 10 s;`);
  });

  it('the starter past its maxAge: the dashboard shows the source STALE, its age, the time passed and the hint; `touch` makes it ok again', async () => {
    const made = await folder();
    await writeStarter(made.dir);
    const quotes = join(made.dir, 'quotes.json');
    const written = (await stat(quotes)).mtime;
    let now = new Date(written.getTime() + 10_000);
    const service = await start(made, { now: () => now });
    expect((await sourcesOf(service.base))[0]).toMatchObject({
      name: 'backoffice',
      state: 'ok',
      maxAgeSeconds: 300,
      leftSeconds: 290,
    });

    // Six minutes later every direction needing a quote is held back: the source answers, with quotes too old.
    now = new Date(written.getTime() + 360_000);
    await service.rebuild();
    const [stale] = await sourcesOf(service.base);
    expect(stale).toMatchObject({
      name: 'backoffice',
      state: 'stale',
      quoteAgeSeconds: 360,
      maxAgeSeconds: 300,
      leftSeconds: -60,
    });
    expect(stale?.problem).toBe(
      'every quote is older than maxAge 5 min (the newest is 6 min old): rewrite quotes.json with fresh quotes (new "time" values; a quote without a "time" is as old as the file, so `touch quotes.json` renews it), or raise the source\'s maxAge ("off": no limit)',
    );
    const page = await (await fetch(service.base)).text();
    expect(page).toContain('STALE: quotes past maxAge');
    expect(page).toContain('`touch quotes.json` renews it');

    // `touch quotes.json`: fresh again at the next build.
    await utimes(quotes, now, now);
    await service.rebuild();
    expect((await sourcesOf(service.base))[0]).toMatchObject({ state: 'ok', leftSeconds: 300 });
    expect((await sourcesOf(service.base))[0]?.problem).toBeUndefined();
  });

  it('the demo: its fixed snapshot never expires (maxAge "off"), and the first lines say so', async () => {
    const made = await folder();
    for (const name of ['ratefile.config.yaml', 'quotes.json', 'templates'])
      await cp(join(repoRoot, name), join(made.dir, name), { recursive: true });
    let log = '';
    // A year after the snapshot: still published, never stale.
    const service = await start(made, { now: () => new Date('2027-11-21T12:00:00Z'), log: (text) => (log += text) });
    expect(log).toMatch(
      / info source backoffice: maxAge "off": the quotes of quotes\.json are used however old \(the oldest is 365 days old\), so they never expire; right for a fixed snapshot like the demo's/,
    );
    expect((await sourcesOf(service.base))[0]).toMatchObject({ name: 'backoffice', state: 'ok', maxAgeSeconds: null });
    expect(service.status()?.heldBack ?? []).toEqual([]);
  });
});
