// Crash safety: readers never see a torn export (500+ rebuilds read over HTTP and from disk), SIGKILL at
// random moments leaves every file complete and no temporary file servable, SIGKILL of the real binary right
// before each rename of each export is repaired by the next build (plain, gzip and brotli the same bytes),
// SIGTERM mid-build exits cleanly.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { Agent } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { XMLValidator } from 'fast-xml-parser';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../../src/io/config/load.js';
import { summarize } from '../../../src/pure/status/cycle-lines.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { renderClassic } from '../../../src/pure/exports/classic.js';
import { createExportServer, listen } from '../../../src/service/server/server.js';
import { rawRequest, type RawResponse } from '../../support/http.js';
import { assertBuilt, spawnRatefile, stopAll, waitForServing } from '../../support/process.js';
import { makeProject, everySecondConfig, sampleQuotes, type Project } from '../../support/project.js';
import { xmlErrors } from '../../support/xml.js';
import type { ExportItem } from '../../../src/model/items.js';

const exportFiles = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml'] as const;
const declaration = '<?xml version="1.0" encoding="UTF-8"?>\n<rates>';
const publisher = fileURLToPath(new URL('../../fixtures/publisher.mjs', import.meta.url));

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  await stopAll();
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

async function tempDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

async function project(files: Record<string, string> = {}): Promise<Project> {
  const made = await makeProject(files);
  cleanups.push(() => made.remove());
  return made;
}

/** The cheap check every single read gets: the whole document, from the declaration to the last line. */
const looksComplete = (text: string) => text.startsWith(declaration) && text.endsWith('</rates>\n');

const sha = (text: string | Buffer) => createHash('sha1').update(text).digest('hex');

function quotesAt(round: number): string {
  // BTC/USDT creeps up by 1 USDT a round (0.5% over 500 rounds: no jump guard); USDT/RUB wobbles.
  const bid = (97_012.3 + round).toFixed(2);
  return JSON.stringify({
    quotes: [
      { pair: 'BTC/USDT', bid, ask: (Number(bid) + 0.01).toFixed(2), time: '2026-11-21T12:00:00Z' },
      { pair: 'USDT/RUB', bid: (92.1 + (round % 7) / 100).toFixed(2), ask: '92.40', time: '2026-11-21T12:00:00Z' },
    ],
  });
}

beforeAll(() => assertBuilt());

describe('readers during up to 500 rebuilds', () => {
  it('see only complete, well-formed documents over HTTP and from disk', async () => {
    // Bounded in count and in time: at least 100 rebuilds, then more while the time budget lasts (a loaded
    // machine rebuilds slower; the check is the same for every round).
    const maxRounds = 500;
    const minRounds = 100;
    const budgetMs = 25_000;
    let rounds = 0;
    const made = await project();
    const outDir = join(made.dir, 'public');
    const config = await loadConfig(made.configPath);
    const now = () => new Date('2026-11-21T12:00:30Z');
    const initial = await runCycle(config, outDir, { now });

    const server = createExportServer(outDir);
    const port = await listen(server, 0, '127.0.0.1');
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    cleanups.push(async () => {
      agent.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    });

    /** Every version the writer published, by file; and every distinct text a reader saw, by file. */
    const published = new Map<string, Set<string>>(
      exportFiles.map((file) => [
        file,
        new Set(
          initial.build.files.filter((entry) => entry.file === file).map((entry) => entry.bytes.toString('utf8')),
        ),
      ]),
    );
    const seen = new Map<string, Map<string, string>>(exportFiles.map((file) => [file, new Map<string, string>()]));
    const torn: string[] = [];
    const reads = { http: 0, compressed: 0, disk: 0 };
    let done = false;

    const record = (file: string, text: string, how: string) => {
      if (!looksComplete(text))
        torn.push(`${how} ${file}: ${JSON.stringify(text.slice(0, 60))}…${JSON.stringify(text.slice(-30))}`);
      seen.get(file)?.set(sha(text), text);
    };

    let encoded = 0;
    const bodyOf = (response: RawResponse): string => {
      const encoding = response.headers['content-encoding'];
      if (encoding !== undefined) encoded++;
      if (encoding === 'gzip') return gunzipSync(response.body).toString('utf8');
      if (encoding === 'br') return brotliDecompressSync(response.body).toString('utf8');
      return response.body.toString('utf8');
    };

    const maxReads = 20_000; // a bound, in case the writer hangs
    // Readers pause a moment between reads, so they share the event loop with the writer instead of starving it.
    const pause = () => new Promise((resolve) => setTimeout(resolve, 2));
    // A failed read (a broken response, a missing file) counts against the publisher like a torn one.
    const httpReader = async (offset: number, acceptEncoding?: string) => {
      for (let index = offset; !done && index < maxReads; index++) {
        const file = exportFiles[index % exportFiles.length] ?? 'parserfile.xml';
        try {
          const response = await rawRequest({
            port,
            path: `/${file}`,
            agent,
            ...(acceptEncoding ? { headers: { 'Accept-Encoding': acceptEncoding } } : {}),
          });
          if (response.status !== 200) torn.push(`HTTP ${file}: status ${response.status}`);
          record(file, bodyOf(response), 'HTTP');
        } catch (error) {
          torn.push(`HTTP ${file}: ${(error as Error).message}`);
        }
        if (acceptEncoding) reads.compressed++;
        else reads.http++;
        await pause();
      }
    };
    const diskReader = async (offset: number) => {
      for (let index = offset; !done && index < maxReads; index++) {
        const file = exportFiles[index % exportFiles.length] ?? 'parserfile.xml';
        try {
          record(file, await readFile(join(outDir, file), 'utf8'), 'disk');
        } catch (error) {
          torn.push(`disk ${file}: ${(error as Error).message}`);
        }
        reads.disk++;
        await pause();
      }
    };

    const writer = async () => {
      try {
        const start = performance.now();
        for (
          let round = 1;
          round <= maxRounds && (round <= minRounds || performance.now() - start < budgetMs);
          round++
        ) {
          rounds = round;
          // The quotes file is replaced atomically too, as the README asks of a back office.
          await writeFile(join(made.dir, 'quotes.json.new'), quotesAt(round));
          await rename(join(made.dir, 'quotes.json.new'), join(made.dir, 'quotes.json'));
          const cycle = await runCycle(config, outDir, { now });
          expect(cycle.build.report.withheld).toEqual([]);
          for (const { file, bytes } of cycle.build.files) published.get(file)?.add(bytes.toString('utf8'));
        }
      } finally {
        done = true;
      }
    };

    const started = performance.now();
    // Settled, not raced: every reader has stopped before the folder can be cleaned up.
    const [written] = await Promise.allSettled([writer(), httpReader(0), httpReader(1, 'gzip, br'), diskReader(0)]);
    if (written.status === 'rejected') throw written.reason;
    const seconds = (performance.now() - started) / 1000;

    const summary = `${rounds} rebuilds in ${seconds.toFixed(1)} s; reads ${JSON.stringify(reads)}, ${encoded} compressed responses`;
    expect(torn.slice(0, 10), `${torn.length} bad reads`).toEqual([]);
    expect(reads.http + reads.compressed, summary).toBeGreaterThanOrEqual(300);
    expect(reads.disk, summary).toBeGreaterThanOrEqual(300);
    for (const file of exportFiles) {
      const versions = published.get(file) ?? new Set<string>();
      expect(versions.size, `${file} changed in most rounds`).toBeGreaterThan(rounds / 2);
      const texts = [...(seen.get(file) ?? new Map<string, string>()).values()];
      // The readers really overlapped the writes: they saw many versions, each exactly one that was published.
      expect(texts.length, `distinct versions of ${file} read`).toBeGreaterThanOrEqual(20);
      for (const text of texts) {
        expect(versions.has(text), `${file}: a read matched no published version`).toBe(true);
        expect(XMLValidator.validate(text), file).toBe(true);
      }
      // libxml2 on a sample: the first, the last and a spread in between.
      const sample = texts.filter(
        (_, index) => index % Math.ceil(texts.length / 8) === 0 || index === texts.length - 1,
      );
      for (const text of sample) expect(await xmlErrors(text, file)).toEqual([]);
    }
  }, 60_000);
});

describe('SIGKILL while publishing', () => {
  /** Two versions of the three exports, large enough (≈0.5 MB) that a write takes a while. */
  function versions(): { file: string; text: string }[][] {
    return [0, 1].map((version) =>
      exportFiles.map((file, fileIndex) => {
        const items: ExportItem[] = Array.from({ length: 2500 }, (_, index) => ({
          from: `C${fileIndex}X${index}`,
          to: 'SBERRUB',
          in: '1',
          out: (93 + version + index / 10_000).toFixed(4),
          amount: String(1_000_000 + index),
          minamount: '0.001',
          maxamount: (5 + version).toFixed(8),
          param: 'manual, verifying',
        }));
        return { file, text: renderClassic({ name: file.replace('.xml', ''), file, items }).toString('utf8') };
      }),
    );
  }

  const temporary = /^\.(affiliatefile|parserfile|reffile)\.xml(\.gz|\.br)?\.[0-9a-f]+\.tmp$/;

  /** What a killed publisher left in `dir`: problems found (none expected) and the temporary files left. */
  async function inspect(
    dir: string,
    known: ReadonlyMap<string, readonly string[]>,
    port: number,
  ): Promise<{ problems: string[]; leftovers: string[] }> {
    const problems: string[] = [];
    const leftovers: string[] = [];
    const names = await readdir(dir);
    for (const file of exportFiles) if (!names.includes(file)) problems.push(`${file} is missing`);
    for (const name of names) {
      const bytes = await readFile(join(dir, name));
      const base = name.replace(/\.(gz|br)$/, '');
      const versionsOf = known.get(base);
      if (versionsOf && name === base) {
        if (!versionsOf.includes(bytes.toString('utf8')))
          problems.push(`${name}: ${bytes.length} bytes, not one of the published versions`);
        const served = await rawRequest({ port, path: `/${name}` });
        if (served.status !== 200 || !served.body.equals(bytes))
          problems.push(`GET /${name}: ${served.status}, ${served.body.length} bytes`);
        continue;
      }
      if (versionsOf) {
        // A compressed copy next to an export: complete as well, whichever version it holds.
        let text = '';
        try {
          text = (name.endsWith('.gz') ? gunzipSync(bytes) : brotliDecompressSync(bytes)).toString('utf8');
        } catch (error) {
          problems.push(`${name}: does not decompress: ${(error as Error).message}`);
        }
        if (text !== '' && !versionsOf.includes(text))
          problems.push(`${name}: decompresses to none of the published versions`);
      } else if (temporary.test(name)) {
        leftovers.push(name);
      } else {
        problems.push(`${name}: unexpected file`);
      }
      // Nothing but an export itself may be served: temporary files never, however the name is spelt.
      for (const path of [`/${encodeURIComponent(name)}`, `/${name.replace(/^\./, '%2E')}`]) {
        const served = await rawRequest({ port, path });
        if (served.status !== 404 && !(versionsOf && served.status === 200))
          problems.push(`GET ${path}: ${served.status}, expected 404`);
      }
    }
    return { problems, leftovers };
  }

  async function killOnce(versionsPath: string, dir: string): Promise<{ delayMs: number; exitSignal: string | null }> {
    const child = spawn(process.execPath, [publisher, versionsPath, dir], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
      child.once('close', (code, signal) => resolve({ code, signal })),
    );
    const ready = await new Promise<boolean>((resolve) => {
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        if (chunk.includes('ready')) resolve(true);
      });
      void exited.then(() => resolve(false));
    });
    if (!ready) throw new Error(`publisher exited before it was ready: ${stderr}`);
    const delayMs = 5 + Math.floor(Math.random() * 56);
    await new Promise((resolve) => setTimeout(resolve, delayMs));
    child.kill('SIGKILL');
    const exit = await exited;
    return { delayMs, exitSignal: exit.signal };
  }

  it('leaves every export complete (old or new) and no temporary file servable, 52 times', async () => {
    const root = await tempDir('ratefile-crash-');
    const all = versions();
    const versionsPath = join(root, 'versions.json');
    await writeFile(versionsPath, JSON.stringify(all));
    const known = new Map<string, string[]>(
      exportFiles.map((file) => [file, all.map((version) => version.find((entry) => entry.file === file)?.text ?? '')]),
    );

    const lanes = 4;
    const killsPerLane = 13;
    const results: { lane: number; delayMs: number; problems: string[]; leftovers: number }[] = [];
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        const dir = join(root, `lane-${lane}`);
        const server = createExportServer(dir);
        const port = await listen(server, 0, '127.0.0.1');
        try {
          for (let kill = 0; kill < killsPerLane; kill++) {
            const { delayMs, exitSignal } = await killOnce(versionsPath, dir);
            expect(exitSignal).toBe('SIGKILL');
            const { problems, leftovers } = await inspect(dir, known, port);
            results.push({ lane, delayMs, problems, leftovers: leftovers.length });
          }
        } finally {
          await new Promise<void>((resolve) => server.close(() => resolve()));
        }
      }),
    );
    expect(results).toHaveLength(lanes * killsPerLane);
    expect(results.filter((result) => result.problems.length > 0)).toEqual([]);
    // The kills landed mid-write at least sometimes (each one that did left a temporary file behind).
    const killsLeavingTemporaries = results.filter(
      (result, index) =>
        result.leftovers >
        (results.filter((other, at) => at < index && other.lane === result.lane).at(-1)?.leftovers ?? 0),
    );
    expect(
      killsLeavingTemporaries.length,
      `kills that interrupted a write (delays ${results.map((r) => r.delayMs).join(', ')} ms)`,
    ).toBeGreaterThan(0);
  }, 45_000);

  it('the inspection itself catches a torn export and a stray file', async () => {
    const dir = await tempDir('ratefile-torn-');
    const all = versions();
    const known = new Map<string, string[]>(
      exportFiles.map((file) => [file, all.map((version) => version.find((entry) => entry.file === file)?.text ?? '')]),
    );
    for (const { file, text } of all[0] ?? [])
      await writeFile(join(dir, file), file === 'reffile.xml' ? text.slice(0, 1000) : text);
    await writeFile(join(dir, '.parserfile.xml.0123456789ab.tmp'), 'half');
    await writeFile(join(dir, 'parserfile.xml.tmp'), 'half');
    const server = createExportServer(dir);
    const port = await listen(server, 0, '127.0.0.1');
    try {
      const { problems, leftovers } = await inspect(dir, known, port);
      expect(leftovers).toEqual(['.parserfile.xml.0123456789ab.tmp']);
      expect(problems).toEqual([
        'parserfile.xml.tmp: unexpected file',
        'reffile.xml: 1000 bytes, not one of the published versions',
      ]);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});

describe('SIGKILL right before each rename of a build', () => {
  /**
   * A `--import` module for the real binary that kills the process (SIGKILL: no handler, no cleanup) the moment
   * it is about to rename a file called `name` into place. It patches fs/promises itself, so ratefile carries no
   * test hook; syncBuiltinESMExports makes the ESM named import `rename` see the patch.
   */
  const killBeforeRename = (name: string) =>
    `data:text/javascript,${encodeURIComponent(`
      import { basename } from 'node:path';
      import { createRequire, syncBuiltinESMExports } from 'node:module';
      const fsp = createRequire(process.cwd() + '/')('node:fs/promises');
      const rename = fsp.rename;
      fsp.rename = (from, to) => (basename(String(to)) === ${JSON.stringify(name)} ? process.kill(process.pid, 'SIGKILL') : rename(from, to));
      syncBuiltinESMExports();
    `)}`;

  /** Quotes B: every export's rates move (by less than the jump guard's limit). */
  const quotesB = JSON.stringify({
    quotes: [
      { pair: 'BTC/USDT', bid: '97100.00', ask: '97100.01' },
      { pair: 'USDT/RUB', bid: '92.20', ask: '92.45' },
    ],
  });

  async function ratefileBuild(made: Project, nodeArgs: readonly string[]) {
    const proc = spawnRatefile(['build', '--config', made.configPath], { cwd: made.dir, nodeArgs });
    const exit = await proc.exited;
    return { exit, log: proc.stderr() };
  }

  /** Each export's plain file and its two copies, decoded. */
  async function decoded(dir: string, file: string): Promise<{ plain: Buffer; gzip: Buffer; brotli: Buffer }> {
    const path = join(dir, file);
    return {
      plain: await readFile(path),
      gzip: gunzipSync(await readFile(`${path}.gz`)),
      brotli: brotliDecompressSync(await readFile(`${path}.br`)),
    };
  }

  const renamePoints = exportFiles.flatMap((file) => [`${file}.gz`, `${file}.br`, file]);

  it('kills the real binary at all 9 rename points, and each time the next build leaves plain, gzip and brotli the fresh bytes', async () => {
    const outcomes = await Promise.all(
      renamePoints.map(async (point) => {
        const made = await project();
        const out = join(made.dir, 'public');
        // A: the quotes every build but the killed one prices, built fresh in-process for the reference bytes.
        const fresh = await runCycle(await loadConfig(made.configPath), out, { now: () => new Date() });
        await made.write('quotes.json', quotesB);
        const killed = await ratefileBuild(made, ['--import', killBeforeRename(point)]);
        const export_ = point.replace(/\.(gz|br)$/, '');
        const torn = await decoded(out, export_);
        await made.write('quotes.json', JSON.stringify(sampleQuotes, null, 2));
        const next = await runCycle(await loadConfig(made.configPath), out, { now: () => new Date() });
        const problems: string[] = [];
        for (const file of exportFiles) {
          const expected = fresh.build.files.find((f) => f.file === file)?.bytes;
          const { plain, gzip, brotli } = await decoded(out, file);
          if (!expected || !plain.equals(expected)) problems.push(`${file}: plain is not the fresh build`);
          if (!gzip.equals(plain)) problems.push(`${file}.gz decodes to other bytes than ${file}`);
          if (!brotli.equals(plain)) problems.push(`${file}.br decodes to other bytes than ${file}`);
        }
        return { point, killed, torn, next, problems };
      }),
    );
    for (const { point, killed, torn, next, problems } of outcomes) {
      // The kill landed exactly where it was meant to: the build never reached its summary.
      expect(killed.exit, `${point}: ${killed.log}`).toEqual({ code: null, signal: 'SIGKILL' });
      expect(killed.log, point).not.toMatch(/build: published/);
      if (point.endsWith('.xml')) {
        // Killed before the plain file's rename: its copies already hold B, the file itself A.
        expect(torn.gzip.equals(torn.plain), `${point}: left mixed by the kill`).toBe(false);
        expect(torn.brotli.equals(torn.plain), `${point}: left mixed by the kill`).toBe(false);
        expect(summarize(next), point).toMatch(
          new RegExp(`(^|; |, )${point.replaceAll('.', '\\.')} \\d+ items? \\(written\\)`),
        );
      }
      expect(problems, point).toEqual([]);
    }
  }, 90_000);
});

describe('SIGTERM during a build', () => {
  /**
   * A `--import` module for the real binary: while `quotes.hold` lies beside the quotes file, opening the quotes
   * file writes `quotes.waiting` and waits until `quotes.hold` is gone, so the test knows a build is running when it
   * sends SIGTERM and decides when that build goes on. (A named pipe did this once; ratefile now refuses one.)
   */
  const holdQuotes = `data:text/javascript,${encodeURIComponent(`
    import { existsSync, writeFileSync } from 'node:fs';
    import { basename, dirname, join } from 'node:path';
    import { createRequire, syncBuiltinESMExports } from 'node:module';
    const fsp = createRequire(process.cwd() + '/')('node:fs/promises');
    const open = fsp.open;
    fsp.open = async (path, ...rest) => {
      const hold = join(dirname(String(path)), 'quotes.hold');
      if (basename(String(path)) === 'quotes.json' && existsSync(hold)) {
        writeFileSync(join(dirname(String(path)), 'quotes.waiting'), '');
        while (existsSync(hold)) await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return open(path, ...rest);
    };
    syncBuiltinESMExports();
  `)}`;

  it('lets the build finish, then exits 0 with complete files', async () => {
    const made = await project({ 'ratefile.config.yaml': everySecondConfig });
    const quotes = join(made.dir, 'quotes.json');
    const content = (bid: string) =>
      JSON.stringify({
        quotes: [
          { pair: 'BTC/USDT', bid, ask: `${bid}1`, time: '2026-11-21T12:00:00Z' },
          { pair: 'USDT/RUB', bid: '92.10', ask: '92.35', time: '2026-11-21T12:00:00Z' },
        ],
      });
    await writeFile(quotes, content('97012.30'));

    const proc = spawnRatefile(['start', '--config', made.configPath, '--port', '0', '--host', '127.0.0.1'], {
      cwd: made.dir,
      nodeArgs: [`--import=${holdQuotes}`],
    });
    await waitForServing(proc);
    const first = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');

    // The next scheduled build opens the quotes and waits there: stop the process now.
    await writeFile(join(made.dir, 'quotes.hold'), '');
    await writeFile(`${quotes}.new`, content('97500.00'));
    await rename(`${quotes}.new`, quotes);
    const waiting = join(made.dir, 'quotes.waiting');
    for (
      let tries = 0;
      !(await readFile(waiting).then(
        () => true,
        () => false,
      ));
      tries++
    ) {
      if (tries > 500) throw new Error(`no build opened the quotes:\n${proc.stderr()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const running = { finish: () => rm(join(made.dir, 'quotes.hold')) };
    const stopped = proc.stop('SIGTERM', 15_000);
    await proc.waitForLog(/SIGTERM: finishing the running build, then stopping/);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(proc.child.exitCode, 'still running while its build waits').toBeNull();
    await running.finish();
    const exit = await stopped;

    expect(exit, proc.stderr()).toEqual({ code: 0, signal: null });
    const log = proc.stderr();
    const signalAt = log.indexOf('SIGTERM: finishing the running build');
    // The running build finished (and published) after the signal, then the process stopped.
    expect(log.slice(signalAt)).toMatch(
      /info build: published 4 directions, 0 held back; [^\n]*parserfile\.xml 5 items \(written\)[^\n]*\n(.*\n)*\S+ info stopped\n$/,
    );
    const last = await readFile(join(made.dir, 'public', 'parserfile.xml'), 'utf8');
    expect(last).not.toBe(first);
    for (const file of exportFiles) {
      const text = await readFile(join(made.dir, 'public', file), 'utf8');
      expect(looksComplete(text)).toBe(true);
      expect(await xmlErrors(text, file)).toEqual([]);
    }
    expect((await readdir(join(made.dir, 'public'))).filter((name) => name.startsWith('.'))).toEqual([]);
  }, 30_000);
});
