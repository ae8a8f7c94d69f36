// `ratefile quote FROM TO AMOUNT`: the signed quote `/quote` answers, from the archive's newest record and the file
// served now (they must be the same bytes), signed with the operator key; a refusal prints why and exits 1.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';

interface QuoteOptions {
  config: string;
  city?: string;
  export?: string;
}

export function register(program: Command, context: CommandContext): void {
  program
    .command('quote')
    .description(
      'the signed quote of a direction for an amount: the rate the export publishes now for it (tier, limits, reserve), its build, validUntil',
    )
    .argument('<from>', 'from currency code (as the export publishes it)')
    .argument('<to>', 'to currency code')
    .argument('<amount>', 'amount of the from currency, like 0.05')
    .option('--city <code>', 'the city of a cash direction')
    .option('--export <file>', 'the export to quote from (default: quote.export, else the primary export)')
    .addOption(configOption())
    .action(async (from: string, to: string, amount: string, options: QuoteOptions) => {
      const [{ readArchive }, { loadSigningKey }, { signedQuote }, { readStatus }, { sha256Hex }] = await Promise.all([
        import('../io/archive/archive.js'),
        import('../io/archive/key.js'),
        import('../io/archive/quote.js'),
        import('../io/build/cycle.js'),
        import('../pure/archive/record.js'),
      ]);
      const config = await context.load(options.config);
      const key = await loadSigningKey(config.archive.key, config.dir, context.deps.env);
      const reader = await readArchive(config, context.deps.env);
      const status = await readStatus(config.stateDir);
      const outDir = context.outDir(config, undefined);
      try {
        const last = await reader.last();
        const result = await signedQuote({
          config,
          request: {
            from: from.toUpperCase(),
            to: to.toUpperCase(),
            amount,
            ...(options.city ? { city: options.city.toUpperCase() } : {}),
            ...(options.export ? { export: options.export } : {}),
          },
          last: last?.record.header,
          // What is served now must be the newest record's: the file on disk, its SHA-256 the record's.
          bytes: async (file) => {
            const bytes = await readFile(join(outDir, file)).catch(() => undefined);
            return bytes && sha256Hex(bytes) === last?.record.header.exports[file]?.sha256 ? bytes : undefined;
          },
          key,
          status,
          now: context.deps.now(),
          ...(status?.ha ? { role: status.ha.role } : {}),
        });
        if ('quote' in result) context.deps.stdout.write(`${JSON.stringify(result.quote, null, 2)}\n`);
        else {
          context.deps.stdout.write(`${JSON.stringify({ refused: result.refused }, null, 2)}\n`);
          context.setExitCode(1);
        }
      } finally {
        await reader.store.close();
      }
    });
}
