// What `ratefile archive verify|key|keygen` run (registered in archive.ts, imported only when one runs).
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { RatefileError } from '../base/errors.js';
import { shownLines } from './at-action.js';
import { readArchive, verifiedOf, writeVerified } from '../io/archive/archive.js';
import { loadSigningKey, newSigningKey } from '../io/archive/key.js';
import { verifyArchive } from '../io/archive/verify.js';
import { readStatus } from '../io/build/cycle.js';
import type { CommandContext } from './context.js';

/** `ratefile archive verify`'s options. */
export interface VerifyOptions {
  config: string;
  publicKey?: string;
  rebuild?: boolean;
  json?: boolean;
}

export async function verifyCommand(context: CommandContext, options: VerifyOptions): Promise<void> {
  const config = await context.load(options.config);
  const reader = await readArchive(config, context.deps.env);
  // The status names the newest record the service recorded: one cut from the end is missing against it.
  const last = (await readStatus(config.stateDir))?.archive?.last;
  try {
    const result = await verifyArchive(reader.store, {
      ...(options.publicKey ? { publicKey: options.publicKey } : {}),
      ...(options.rebuild ? { rebuild: true } : {}),
      ...(last ? { expectedLast: { seq: last.seq, hash: last.hash } } : {}),
    });
    await writeVerified(config.stateDir, verifiedOf(result, context.deps.now())).catch(() => undefined);
    const write = (text: string) => context.deps.stdout.write(shownLines(text));
    if (options.json) write(`${JSON.stringify(result, null, 2)}\n`);
    else {
      const span =
        result.first && result.last
          ? ` from seq ${result.first.seq} (${result.first.published}) to seq ${result.last.seq} (${result.last.published})`
          : '';
      write(
        `archive (${reader.store.where}): ${result.records} records in ${result.segments} segments${span}, ${result.signed} signed\n`,
      );
      const [first, ...more] = result.problems;
      if (first)
        write(`FIRST BAD: ${first.where}: ${first.problem}${more.length > 0 ? ` (and ${more.length} more)` : ''}\n`);
      for (const problem of more.slice(0, 20)) write(`  then ${problem.where}: ${problem.problem}\n`);
      if (!first) write('verifies: every record is the one its hash and signature say, each follows the one before\n');
    }
    context.setExitCode(result.problems.length > 0 ? 1 : 0);
  } finally {
    await reader.store.close();
  }
}

export async function keyCommand(context: CommandContext, options: { config: string }): Promise<void> {
  const config = await context.load(options.config);
  const key = await loadSigningKey(config.archive.key, config.dir, context.deps.env);
  if (!key) throw new RatefileError('E_USAGE', 'no archive.key in this config: records and quotes are not signed');
  context.deps.stdout.write(`${key.publicKey}\n`);
}

export async function keygenCommand(context: CommandContext, options: { out: string }): Promise<void> {
  const path = resolve(context.deps.cwd, options.out);
  const { pem, publicKey } = newSigningKey();
  await writeFile(path, pem, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    throw new RatefileError(
      'E_USAGE',
      error.code === 'EEXIST'
        ? `${context.shown(path)} exists: a key is never overwritten`
        : `cannot write ${context.shown(path)}: ${error.code}`,
    );
  });
  context.log.info(
    `wrote the private key to ${context.shown(path)} (owner-only); set archive.key: { file: ${options.out} }`,
  );
  context.deps.stdout.write(`${publicKey}\n`);
}
