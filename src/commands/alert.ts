// `ratefile alert test`: a test message to every alert channel the config names (webhook, Telegram, email), each
// sent once with the channel's own code, and which arrived (the receiver took it) or why not; exit 1 if any failed.
import { Argument, type Command } from 'commander';
import { escapeControls, RatefileError } from '../base/errors.js';
import { configOption, type CommandContext } from './context.js';

async function testAlerts(context: CommandContext, options: { config: string }): Promise<void> {
  const { deps } = context;
  const config = await context.load(options.config);
  const shown = context.shown(config.file);
  if (!config.alerts) throw new RatefileError('E_USAGE', `${shown} has no alerts: block: no channel to test`);
  const [{ createChannels }, { randomUUID }, { hostname }, { redactSecrets }] = await Promise.all([
    import('../service/alerts/channels.js'),
    import('node:crypto'),
    import('node:os'),
    import('../base/secrets.js'),
  ]);
  const channels = createChannels(config.alerts, deps.env, deps.fetch);
  if (channels.length === 0)
    throw new RatefileError('E_USAGE', `alerts: in ${shown} names no channel (webhook, telegram or email)`);
  const message = {
    id: randomUUID(),
    at: deps.now().toISOString(),
    level: 'ok',
    events: [],
    text: `TEST from ratefile on ${hostname()} (${shown}): alerts reach this channel. Nothing is wrong.`,
  };
  const outcomes = await Promise.allSettled(channels.map((channel) => channel.send(message)));
  let failed = 0;
  outcomes.forEach((outcome, index) => {
    const name = channels[index]!.name;
    if (outcome.status === 'fulfilled') deps.stdout.write(`${name}: arrived\n`);
    else {
      failed += 1;
      const why = escapeControls(redactSecrets((outcome.reason as Error).message ?? String(outcome.reason)));
      deps.stdout.write(`${name}: FAILED: ${why}\n`);
    }
  });
  deps.stdout.write(
    failed === 0
      ? `every channel took test alert ${message.id}\n`
      : `${failed} of ${channels.length} channel(s) failed; test alert ${message.id}\n`,
  );
  context.setExitCode(failed === 0 ? 0 : 1);
}

export function register(program: Command, context: CommandContext): void {
  program
    .command('alert')
    .description('test the alert channels: `alert test` sends a test message to each and says which arrived')
    .addArgument(new Argument('<action>', 'test: one test message to every channel of alerts:').choices(['test']))
    .addOption(configOption())
    .action((_action: string, options: { config: string }) => testAlerts(context, options));
}
