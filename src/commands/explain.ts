// `ratefile explain FROM TO`: how a direction's published rate comes about, or why it is held back. Only the
// registration is here; the build and the lines are in explain-action.ts, imported when the command runs.
import type { Command } from 'commander';
import { configOption, type CommandContext } from './context.js';
import type { ExplainOptions } from './explain-action.js';

export function register(program: Command, context: CommandContext): void {
  program
    .command('explain')
    .description(
      "show how a direction's published rate comes about (quotes, chain, margin, markup, rounding, reserve, limits) or why it is held back",
    )
    .argument('<from>', 'from currency code')
    .argument('<to>', 'to currency code')
    .option('--city <code>', 'only the item of this city (cash directions)')
    .option('--export <name>', 'only this export (parserfile, reffile, affiliatefile…)')
    .addOption(configOption())
    .action(async (fromCode: string, toCode: string, options: ExplainOptions) => {
      const { explainDirection } = await import('./explain-action.js');
      await explainDirection(context, fromCode, toCode, options);
    });
}
