// `ratefile schema`: JSON Schema of the config file or of an export template, for editors.
import type { Command } from 'commander';
import type { CommandContext } from './context.js';

export function register(program: Command, context: CommandContext): void {
  program
    .command('schema')
    .description('print the JSON Schema of the config file (or of an export template) for editors')
    .option('--template', 'print the schema of export templates instead')
    .action(async (options: { template?: boolean }) => {
      const [{ configJsonSchema, toJsonSchema }, { templateSchema }] = await Promise.all([
        import('../io/config/schema.js'),
        import('../io/exports/template.js'),
      ]);
      const schema = options.template ? toJsonSchema(templateSchema) : configJsonSchema();
      context.deps.stdout.write(`${JSON.stringify(schema, null, 2)}\n`);
      context.setExitCode(0);
    });
}
