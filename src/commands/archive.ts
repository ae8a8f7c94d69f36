// `ratefile archive verify`: every record of the archive checked, the first bad one named (exit 1); `ratefile archive
// key`: the public half of the operator key (what a third party verifies with); `ratefile archive keygen`: a new key.
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';
import type { VerifyOptions } from './archive-action.js';

export function register(program: Command, context: CommandContext): void {
  const archive = program
    .command('archive')
    .description('the archive of published exports: verify its records, show or make the operator key');
  archive
    .command('verify')
    .description(
      'check every record (hash, chain, blobs, signatures, nothing cut from the end) and name the first bad one',
    )
    .option(
      '--public-key <base64>',
      'every record must be signed by this Ed25519 public key (yours, as you published it)',
    )
    .option('--rebuild', 'also rebuild every export at every record and compare its SHA-256 (slow on a large archive)')
    .option('--json', 'print the result as JSON')
    .addOption(configOption())
    .action(async (options: VerifyOptions) => {
      const { verifyCommand } = await import('./archive-action.js');
      await verifyCommand(context, options);
    });
  archive
    .command('key')
    .description(
      'print the public half of the operator key (archive.key): what a third party and your engine verify with',
    )
    .addOption(configOption())
    .action(async (options: { config: string }) => {
      const { keyCommand } = await import('./archive-action.js');
      await keyCommand(context, options);
    });
  archive
    .command('keygen')
    .description(
      'make a new Ed25519 operator key: its PEM to --out (owner-only, never overwritten), its public half printed',
    )
    .requiredOption('-o, --out <path>', 'file to write the private key to')
    .action(async (options: { out: string }) => {
      const { keygenCommand } = await import('./archive-action.js');
      await keygenCommand(context, options);
    });
}
