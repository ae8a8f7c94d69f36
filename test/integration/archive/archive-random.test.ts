// Issue 47's proof: over 500+ builds — quotes moving (now and then past the jump guard), config reloads (margins, a
// direction, a fourth export), pauses, maintenance, restarts, `ratefile build` run by hand beside the recorder, and
// the real binary killed mid-build three ways (before an export's rename, before the archive's append, and halfway
// through it) — every export as served after every build is what the archive rebuilds for that moment (its bytes,
// so its digest), `archive verify` passes, and editing, removing or cutting a record makes it fail naming the record.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, readdir, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openArchive, type Archive } from '../../../src/io/archive/archive.js';
import { fileStore } from '../../../src/io/archive/files.js';
import { ArchiveReader } from '../../../src/io/archive/reader.js';
import { verifyArchive } from '../../../src/io/archive/verify.js';
import { runCycle } from '../../../src/io/build/cycle.js';
import { loadConfig } from '../../../src/io/config/load.js';
import { assertBuilt, spawnRatefile } from '../../support/process.js';
import { makeProject, sampleConfig, type Project } from '../../support/project.js';
import { random } from '../../support/random.js';
import { runRatefile } from '../../support/run-cli.js';

const SEED = Number(process.env.ARCHIVE_SEED ?? 4747);
const BUILDS = 520;
const files = ['affiliatefile.xml', 'parserfile.xml', 'reffile.xml', 'extra.xml'];
const quiet = { warn: () => undefined, info: () => undefined };
const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** What was served after a build, as read from the output folder, and a moment it was served at. */
interface Served {
  build: number;
  how: string;
  at: number;
  files: Map<string, Buffer | undefined>;
}

const killPoints = {
  // Right before parserfile.xml is renamed into place: some exports published, the rest and the record not.
  rename: `
    const rename = fsp.rename;
    fsp.rename = (from, to) => (basename(String(to)) === 'parserfile.xml' ? process.kill(process.pid, 'SIGKILL') : rename(from, to));`,
  // Every export in place, the record not appended.
  append: `
    const open = fsp.open;
    fsp.open = (path, ...rest) => (String(path).endsWith('.rfa') ? process.kill(process.pid, 'SIGKILL') : open(path, ...rest));`,
  // Half the record written, then the kill: a torn end the next open repairs.
  torn: `
    const open = fsp.open;
    fsp.open = async (path, ...rest) => {
      const handle = await open(path, ...rest);
      if (!String(path).endsWith('.rfa')) return handle;
      const write = handle.write.bind(handle);
      handle.write = async (bytes) => { await write(bytes.subarray(0, Math.floor(bytes.length / 2))); await handle.datasync(); process.kill(process.pid, 'SIGKILL'); };
      return handle;
    };`,
};
const killImport = (body: string) =>
  `data:text/javascript,${encodeURIComponent(`
    import { basename } from 'node:path';
    import { createRequire, syncBuiltinESMExports } from 'node:module';
    const fsp = createRequire(process.cwd() + '/')('node:fs/promises');
    ${body}
    syncBuiltinESMExports();`)}`;

let made: Project;
let served: Served[] = [];
const stateDir = () => join(made.dir, '.ratefile');

beforeAll(async () => {
  assertBuilt();
  made = await makeProject();
  served = await runBuilds(made);
}, 600_000);

afterAll(async () => {
  await made?.remove();
});

async function runBuilds(project: Project): Promise<Served[]> {
  const next = random(SEED);
  const out = join(project.dir, 'public');
  const log: string[] = [];
  let config = await loadConfig(project.configPath);
  let archive: Archive | undefined = await openArchive(config, { env: {}, log: quiet, outDir: out });
  let btc = 97_012.3;
  let margin = '1.5%';
  let extraDirection = false;
  const results: Served[] = [];
  const reload = async () => {
    const text = sampleConfig.replace('margin: 1.5%', `margin: ${margin}`);
    await project.write('ratefile.config.yaml', extraDirection ? `${text}  - { from: SBERRUB, to: BTC }\n` : text);
    config = await loadConfig(project.configPath);
  };
  for (let build = 0; results.length < BUILDS; build++) {
    const roll = next();
    let how = 'move';
    const byBinary = roll > 0.985 || (build > 0 && build % 130 === 0);
    // The binary's build must change the files (a kill point is a rename or an append): maintenance off first.
    if (byBinary) await rm(join(stateDir(), 'maintenance'), { force: true });
    // A big move now and then is held back by the jump guard (a direction withheld, then published again).
    btc *= next() < 0.03 ? 1.2 : byBinary ? 1.003 : 1 + (next() - 0.5) / 200;
    await project.write(
      'quotes.json',
      JSON.stringify({
        quotes: [
          { pair: 'BTC/USDT', bid: btc.toFixed(2), ask: (btc + 0.01).toFixed(2) },
          { pair: 'USDT/RUB', bid: (92.1 + Math.floor(next() * 20) / 100).toFixed(2), ask: '92.40' },
        ],
      }),
    );
    if (roll < 0.05) {
      how = 'reload';
      margin = ['1.5%', '1.2%', '2%'][Math.floor(next() * 3)]!;
      extraDirection = next() < 0.5;
      if (next() < 0.4) await project.write('templates/extra.yaml', 'markup: 1%\n');
      else await rm(join(project.dir, 'templates', 'extra.yaml'), { force: true });
      await reload();
    } else if (roll < 0.09) {
      how = 'pause';
      const paused = (await readdir(join(stateDir(), 'paused')).catch(() => [])).length > 0;
      const outcome = await runRatefile([paused ? 'resume' : 'pause', 'BTC', 'SBERRUB'], project.dir, {
        now: () => new Date(),
      });
      expect(outcome.code, outcome.stderr).toBe(0);
    } else if (roll < 0.12 && !byBinary) {
      how = 'maintenance';
      const on = (await stat(join(stateDir(), 'maintenance')).catch(() => undefined)) !== undefined;
      expect((await runRatefile(['maintenance', on ? 'off' : 'on'], project.dir)).code).toBe(0);
    } else if (roll < 0.15) {
      how = 'restart';
      await archive?.close();
      archive = await openArchive(config, { env: {}, log: quiet, outDir: out });
    }
    if (byBinary) {
      // The real binary: killed at one of the three points, or (by hand, beside the open recorder) left to finish.
      const point = (['rename', 'append', 'torn', undefined] as const)[build % 4];
      how = point ? `kill:${point}` : 'by hand';
      const proc = spawnRatefile(['build'], {
        cwd: project.dir,
        nodeArgs: point ? ['--import', killImport(killPoints[point])] : [],
      });
      const exit = await proc.exited;
      log.push(`${how}: ${exit.signal ?? exit.code} ${proc.stderr().slice(-300)}`);
      if (point) expect(exit.signal, proc.stderr()).toBe('SIGKILL');
      // What a restarted service does: the torn end repaired, the files on disk it lacks recorded as found.
      if (point) {
        await archive?.close();
        archive = await openArchive(config, { env: {}, log: quiet, outDir: out });
      }
    } else {
      await runCycle(config, out, { now: () => new Date(), env: {}, ...(archive ? { archive } : {}) }).catch(
        () => undefined,
      );
    }
    results.push({ build, how, at: Date.now(), files: await servedFiles(out) });
  }
  await archive?.close();
  return results;
}

async function servedFiles(out: string): Promise<Map<string, Buffer | undefined>> {
  return new Map(
    await Promise.all(
      files.map(async (file) => [file, await readFile(join(out, file)).catch(() => undefined)] as const),
    ),
  );
}

describe('the archive over 500+ builds', () => {
  it('rebuilds every export as served after every build, byte for byte, and verifies', async () => {
    expect(served.length).toBeGreaterThanOrEqual(500);
    const hows = new Set(served.map((s) => s.how));
    for (const how of [
      'move',
      'reload',
      'pause',
      'maintenance',
      'restart',
      'kill:rename',
      'kill:append',
      'kill:torn',
      'by hand',
    ])
      expect(hows, how).toContain(how);
    const reader = await ArchiveReader.open(fileStore(stateDir()));
    for (const entry of served) {
      const at = await reader.recordAt(entry.at);
      for (const [file, bytes] of entry.files) {
        const rebuilt = at ? await reader.stream(at, file) : undefined;
        const context = `build ${entry.build} (${entry.how}), ${file}`;
        expect(rebuilt && sha(rebuilt), context).toBe(bytes && sha(bytes));
      }
    }
    const verified = await verifyArchive(fileStore(stateDir()), { rebuild: true });
    expect(verified.problems).toEqual([]);
    expect(verified.records).toBeGreaterThan(300);
  }, 300_000);

  it('`ratefile at TIME --export` writes the exact file served then, and `at TIME FROM TO` says the record verifies', async () => {
    const next = random(SEED + 1);
    for (let i = 0; i < 12; i++) {
      const entry = served[Math.floor(next() * served.length)]!;
      const time = new Date(entry.at).toISOString();
      const bytes = entry.files.get('parserfile.xml');
      const outcome = await runRatefile(['at', time, '--export', 'parserfile.xml'], made.dir);
      if (!bytes) continue;
      expect(outcome.code, outcome.stderr).toBe(0);
      expect(sha(Buffer.from(outcome.stdout, 'utf8')), `build ${entry.build}`).toBe(sha(bytes));
      const direction = await runRatefile(['at', time, 'BTC', 'SBERRUB'], made.dir);
      expect(direction.code, direction.stderr).toBe(0);
      expect(direction.stdout).toMatch(/record: verifies/);
    }
  }, 120_000);

  it('an edited, removed or cut record makes `archive verify` fail naming it', async () => {
    const segments = (await readdir(join(stateDir(), 'archive'))).filter((name) => name.endsWith('.rfa')).sort();
    const reader = await ArchiveReader.open(fileStore(stateDir()));
    const segment = reader.segments.find((s) => s.bytes > 0)!;
    const records = await reader.records(segment);
    const target = records[Math.floor(records.length / 2)]!;
    const seq = target.header.seq;
    const copy = async (change: (path: string, bytes: Buffer) => Buffer) => {
      const dir = await mkdtemp(join(tmpdir(), 'ratefile-tamper-'));
      await cp(join(stateDir(), 'archive'), join(dir, 'archive'), { recursive: true });
      const path = join(dir, 'archive', `${segment.name}.rfa`);
      await writeFile(path, change(path, await readFile(path)));
      return dir;
    };
    const results: Record<string, string> = {};
    const cases: Record<string, (path: string, bytes: Buffer) => Buffer> = {
      // A byte of its blobs changed.
      blob: (_, bytes) => {
        const copyOf = Buffer.from(bytes);
        const at = target.offset + target.headerBytes;
        copyOf[at] = copyOf[at]! ^ 0xff;
        return copyOf;
      },
      // Its header's time changed: the hash no longer matches.
      header: (_, bytes) => {
        const text = bytes.subarray(target.offset, target.offset + target.headerBytes).toString('utf8');
        const edited = text.replace(/"published":"(\d{4})/, (_m, year: string) => `"published":"${Number(year) - 1}`);
        return Buffer.concat([
          bytes.subarray(0, target.offset),
          Buffer.from(edited),
          bytes.subarray(target.offset + target.headerBytes),
        ]);
      },
      // The record taken out whole.
      removed: (_, bytes) =>
        Buffer.concat([bytes.subarray(0, target.offset), bytes.subarray(target.offset + target.size)]),
    };
    for (const [name, change] of Object.entries(cases)) {
      const dir = await copy(change);
      const verified = await verifyArchive(fileStore(dir));
      results[name] = `${verified.problems[0]?.seq}: ${verified.problems[0]?.problem}`;
      await rm(dir, { recursive: true, force: true });
    }
    expect(results.blob).toBe(`${seq}: blob 0 is not the one its header names`);
    expect(results.header).toBe(`${seq}: its hash does not match its contents: the record was edited`);
    expect(results.removed).toBe(`${seq + 1}: records missing before it: seq ${seq - 1} is followed by seq ${seq + 1}`);
    // The newest record cut off whole: against the status's last record, the end is missing.
    const last = segments.at(-1)!;
    const lastRecords = (await fileStore(stateDir()).records(last.slice(0, -4))).records;
    const newest = lastRecords.at(-1)!;
    const dir = await mkdtemp(join(tmpdir(), 'ratefile-tamper-'));
    await cp(join(stateDir(), 'archive'), join(dir, 'archive'), { recursive: true });
    await truncate(join(dir, 'archive', last), newest.offset);
    const cut = await verifyArchive(fileStore(dir), {
      expectedLast: { seq: newest.header.seq, hash: newest.header.hash },
    });
    expect(cut.problems.map((p) => p.problem)).toEqual([
      `records cut from the end: the status saw seq ${newest.header.seq} recorded`,
    ]);
    await truncate(join(dir, 'archive', last), newest.offset + 10);
    const torn = await verifyArchive(fileStore(dir));
    expect(torn.problems[0]?.problem).toMatch(/no whole record.*cut short/);
    await rm(dir, { recursive: true, force: true });
    // And the CLI: exit 1, the first bad record named.
    const edited = await copy(cases.header!);
    await cp(join(edited, 'archive'), join(made.dir, '.ratefile', 'archive'), { recursive: true, force: true });
    const outcome = await runRatefile(['archive', 'verify'], made.dir);
    expect(outcome.code).toBe(1);
    expect(outcome.stdout).toContain(`FIRST BAD: seq ${seq} (segment ${segment.name}`);
    await rm(edited, { recursive: true, force: true });
  }, 120_000);
});
