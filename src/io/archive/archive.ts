// The archive as `build` and `start` hold it: the store the config names, the operator's key, the recorder; what a
// cycle calls after it published (`published`), and the archive's part of the status. Opened once per process.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, RatefileError } from '../../base/errors.js';
import type { Logger } from '../../base/log.js';
import type { ArchiveStatus } from '../../model/archive.js';
import type { Config, OutputFile } from '../../model/config.js';
import { configHash } from '../../pure/ha/fingerprint.js';
import { stateLines } from '../../pure/archive/state.js';
import type { BuildReport } from '../../pure/status/report.js';
import { writeStateFile } from '../state/state-files.js';
import { fileStore } from './files.js';
import { loadSigningKey, type SigningKey } from './key.js';
import { Recorder, type RecordOutcome } from './recorder.js';
import type { ArchiveStore } from './store.js';
import { ArchiveReader } from './reader.js';
import { verifyArchive, type VerifyResult } from './verify.js';

/** What a cycle tells the archive after it published. */
export interface PublishedCycle {
  config: Config;
  /** When the build started, and when its files were in place. */
  at: Date;
  published: Date;
  /** The exports served now that this build gave (the gate's passing files: written or unchanged). */
  files: readonly OutputFile[];
  removed: readonly string[];
  report: BuildReport;
  elapsedMs: number;
  /** Under `ha:`, this instance's name. */
  instance?: string;
}

export interface Archive {
  readonly store: ArchiveStore;
  readonly key: SigningKey | undefined;
  readonly recorder: Recorder;
  /** Never throws: a record not kept is a warning (and the status's problem, an alert). */
  published(cycle: PublishedCycle): Promise<RecordOutcome>;
  /** Files on disk the archive does not have (a build killed before its record), recorded as found. */
  reconcile(outDir: string, declared: readonly string[], now: Date): Promise<RecordOutcome | undefined>;
  status(): ArchiveStatus;
  /** The records appended since the last verified one checked (chain, hashes, blobs, signatures), and noted. */
  check(now: Date): Promise<NonNullable<ArchiveStatus['verified']>>;
  close(): Promise<void>;
}

export interface ArchiveDeps {
  env: Readonly<Record<string, string | undefined>>;
  log: Pick<Logger, 'warn' | 'info'>;
  /** The store, for tests (a disk that fills); default: the config's. */
  store?: ArchiveStore;
  /**
   * The output folder: its exports are checked against the newest record at once, and one the archive lacks (a
   * build killed between its renames and its record) is recorded as found. Not under `ha:`: there the records are
   * the leader's publishes alone.
   */
  outDir?: string;
  now?: () => Date;
}

/** The archive of a config; undefined with `archive.enabled: false`. A key that cannot be read is a config error. */
export async function openArchive(config: Config, deps: ArchiveDeps): Promise<Archive | undefined> {
  const settings = config.archive;
  if (!settings.enabled) return undefined;
  const key = await loadSigningKey(settings.key, config.dir, deps.env);
  const store = deps.store ?? (await storeOf(config, deps.env));
  const recorder = await Recorder.open(store, {
    windowMs: settings.windowMs,
    budgetBytes: settings.budgetBytes,
    key,
    log: deps.log,
  });
  let verified = await readVerified(config.stateDir);
  if (deps.outDir && !config.ha) {
    const found = await recorder.reconcile(
      deps.outDir,
      config.exports.map((e) => e.file),
      (deps.now ?? (() => new Date()))(),
    );
    if (found?.warning) deps.log.warn(found.warning);
  }
  return {
    store,
    key,
    recorder,
    async published(cycle) {
      try {
        return await recorder.record(buildOf(cycle));
      } catch (error) {
        return { warning: `archive: this build is not recorded: ${describeError(error)}` };
      }
    },
    reconcile: (outDir, declared, now) => recorder.reconcile(outDir, declared, now),
    status: () => archiveStatus(config, recorder, key, verified),
    async check(now) {
      const good = verified?.ok !== false && verified?.hash ? { seq: verified.seq, hash: verified.hash } : undefined;
      const result = await verifyArchive(store, good ? { after: good } : {});
      verified = verifiedOf(result, now, verified);
      await writeVerified(config.stateDir, verified).catch(() => undefined);
      return verified;
    },
    close: () => recorder.close(),
  };
}

/** The archive of a config to read (`ratefile at`, `archive verify`, `quote`): nothing is repaired or written. */
export async function readArchive(
  config: Config,
  env: Readonly<Record<string, string | undefined>>,
): Promise<ArchiveReader> {
  if (!config.archive.enabled)
    throw new RatefileError('E_USAGE', 'the archive is off in this config (archive.enabled: false)');
  return ArchiveReader.open(await storeOf(config, env));
}

async function storeOf(config: Config, env: Readonly<Record<string, string | undefined>>): Promise<ArchiveStore> {
  if (config.archive.store === 'files') return fileStore(config.stateDir);
  const { postgresStore } = await import('./postgres.js');
  return postgresStore(config.archive.env!, env, config.ha?.name);
}

/** Per config object (a reload is a new one), its hash once: at 10k directions it is a walk of the whole model. */
const hashes = new WeakMap<Config, string>();
const hashOf = (config: Config) => hashes.get(config) ?? hashes.set(config, configHash(config)).get(config)!;

function buildOf(cycle: PublishedCycle) {
  const { report, instance } = cycle;
  return {
    at: cycle.at,
    published: cycle.published,
    id: `${cycle.at.toISOString()}${instance ? `/${instance}` : ''}`,
    config: hashOf(cycle.config),
    ...(instance ? { instance } : {}),
    ms: cycle.elapsedMs,
    counts: { published: report.directions.published.length, withheld: report.directions.withheld.length },
    files: cycle.files,
    removed: cycle.removed,
    state: stateLines(report),
  };
}

function archiveStatus(
  config: Config,
  recorder: Recorder,
  key: SigningKey | undefined,
  verified: ArchiveStatus['verified'],
): ArchiveStatus {
  const state = recorder.state();
  const first = state.segments.find((segment) => segment.firstPublished !== undefined);
  const last = state.last;
  return {
    store: recorder.store.kind,
    windowMs: config.archive.windowMs,
    budgetBytes: config.archive.budgetBytes,
    bytes: state.segments.reduce((sum, segment) => sum + segment.bytes, 0),
    ...(first?.firstPublished === undefined ? {} : { oldest: new Date(first.firstPublished).toISOString() }),
    ...(last ? { last: { seq: last.seq, hash: last.hash, build: last.build.id, published: last.published } } : {}),
    signed: key !== undefined,
    ...(key ? { publicKey: key.publicKey } : {}),
    ...(verified ? { verified } : {}),
    ...(state.pending > 0 ? { pending: state.pending } : {}),
    ...(state.problem ? { problem: state.problem } : {}),
  };
}

/** What a verification found: the newest record checked good, or the first bad one and why. */
export function verifiedOf(
  result: VerifyResult,
  now: Date,
  before?: ArchiveStatus['verified'],
): NonNullable<ArchiveStatus['verified']> {
  const bad = result.problems[0];
  if (bad) return { seq: bad.seq ?? -1, at: now.toISOString(), ok: false, problem: `${bad.where}: ${bad.problem}` };
  const last = result.last;
  if (!last) return before ?? { seq: -1, at: now.toISOString(), ok: true };
  return { seq: last.seq, hash: last.hash, at: now.toISOString(), ok: true };
}

/** `.ratefile/archive-verified.json`: the last record `ratefile archive verify` (or the service's check) found good. */
export const verifiedFile = (stateDir: string) => join(stateDir, 'archive-verified.json');

export async function readVerified(stateDir: string): Promise<ArchiveStatus['verified']> {
  try {
    const value = JSON.parse(await readFile(verifiedFile(stateDir), 'utf8')) as ArchiveStatus['verified'];
    return value && Number.isSafeInteger(value.seq) && typeof value.at === 'string' ? value : undefined;
  } catch {
    return undefined;
  }
}

export async function writeVerified(stateDir: string, verified: NonNullable<ArchiveStatus['verified']>): Promise<void> {
  await writeStateFile(verifiedFile(stateDir), `${JSON.stringify(verified)}\n`);
}
