// `ratefile at TIME FROM TO`: what each export served for a direction at a moment, from the archive; `ratefile at
// TIME --export FILE`: the exact file served then. Only the registration is here; the body is at-action.ts.
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';
import type { AtOptions } from './at-action.js';

export function register(program: Command, context: CommandContext): void {
  program
    .command('at')
    .description(
      'what each export served for a direction at a moment (the item, the build, its quotes and margin, whether the record verifies), or with --export alone the exact file served then',
    )
    .argument('<time>', 'an ISO time ("2026-12-02T14:03:00Z"; without an offset, this machine\'s time zone), or "now"')
    .argument('[from]', 'from currency code')
    .argument('[to]', 'to currency code')
    .option('--export <file>', 'only this export; without FROM TO: write the file served then (parserfile.xml…)')
    .option('--city <code>', 'only the item of this city (cash directions)')
    .option('-o, --out <path>', 'with --export alone: write the file here instead of to stdout')
    .option('--json', 'print what was found as JSON')
    .addOption(configOption())
    .action(async (time: string, from: string | undefined, to: string | undefined, options: AtOptions) => {
      const { archiveAt } = await import('./at-action.js');
      await archiveAt(context, time, from, to, options);
    });
}
