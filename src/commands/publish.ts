// `ratefile publish`: upload the exports in the output folder to the config's S3 bucket, without building.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { RatefileError } from '../base/errors.js';
import { configOption, outOption, type CommandContext } from './context.js';
import type { OutputFile } from '../model/config.js';

/**
 * The config's exports as the last build wrote them; a missing one means there is nothing right to upload yet.
 * Every unreadable file is named, in the config's order, so the message does not depend on which read failed first.
 */
async function readExports(
  dir: string,
  names: readonly string[],
  shown: (path: string) => string,
): Promise<OutputFile[]> {
  const reads = await Promise.allSettled(names.map(async (file) => ({ file, bytes: await readFile(join(dir, file)) })));
  const problems = reads.flatMap((read, i) => {
    if (read.status === 'fulfilled') return [];
    const cause = read.reason as NodeJS.ErrnoException;
    const reason = cause.code === 'ENOENT' ? 'missing (run `ratefile build` first)' : cause.message;
    return [{ message: `cannot read ${shown(join(dir, names[i]!))}: ${reason}`, cause }];
  });
  if (problems.length > 0)
    throw new RatefileError('E_PUBLISH', problems.map((p) => p.message).join('; '), { cause: problems[0]!.cause });
  return reads.map((read) => (read as PromiseFulfilledResult<OutputFile>).value);
}

export function register(program: Command, context: CommandContext): void {
  const { log } = context;
  program
    .command('publish')
    .description(
      "upload the exports in the output folder to the config's S3 bucket (only files changed since the last upload)",
    )
    .addOption(configOption())
    .addOption(outOption())
    .option('--force', 'upload every export, even those the bucket already has')
    .action(async (options: { config: string; out?: string; force?: boolean }) => {
      const config = await context.load(options.config);
      const target = config.publish.s3;
      if (!target)
        throw new RatefileError(
          'E_USAGE',
          `nothing to publish to: ${context.shown(config.file)} has no publish.s3 block`,
        );
      const dir = context.outDir(config, options.out);
      const files = await readExports(
        dir,
        config.exports.map((e) => e.file),
        context.shown,
      );
      // The AWS SDK is loaded only here and by a build that publishes to S3.
      const { S3Publisher } = await import('../io/hosting/s3.js');
      const { describeTarget, uploadProblems } = await import('../io/hosting/s3-report.js');
      // Its own publisher, closed when done: what was uploaded before is in the state folder.
      const publisher = new S3Publisher(target, config.stateDir);
      try {
        const result = await publisher.upload(files, options.force ? { force: true } : {});
        for (const line of uploadProblems(
          result,
          'local files unaffected; run `ratefile publish` again or let the next build retry',
        ))
          log.warn(line);
        const list = (names: string[]) => (names.length > 0 ? names.join(', ') : 'none');
        log.info(
          `publish: ${describeTarget(target)}: uploaded ${list(result.uploaded)}; unchanged ${list(result.unchanged)}${result.failed.length > 0 ? `; FAILED ${list(result.failed.map((f) => f.file))}` : ''}`,
          {
            event: 'publish',
            target: result.target,
            uploaded: result.uploaded,
            unchanged: result.unchanged,
            failed: result.failed.map((f) => f.file),
          },
        );
        context.setExitCode(result.failed.length > 0 ? 1 : 0);
      } finally {
        publisher.destroy();
      }
    });
}
