// `ratefile edge nginx|cloudflare`: the edge's recipe from the config: nginx lines (the monitors' addresses allowed
// and never rate limited, the caching headers on the export paths) or Cloudflare rules (a WAF skip for the
// monitors' addresses, IP Access rules, a cache rule for the export paths, the headers the origin sends).
import { Argument, type Command } from 'commander';
import { configOption, type CommandContext } from './context.js';

interface EdgeFlags {
  config: string;
  host?: string;
  prefix: string;
  json?: boolean;
}

async function printRecipe(context: CommandContext, edge: 'nginx' | 'cloudflare', options: EdgeFlags): Promise<void> {
  const config = await context.load(options.config);
  const { checkedHost, checkedPrefix, checkRecipeTexts, exportPaths } = await import('../pure/edge/input.js');
  const input = {
    configFile: context.shown(config.file),
    paths: exportPaths(
      config.exports.map((entry) => entry.file),
      checkedPrefix(options.prefix),
    ),
    monitors: config.monitors ?? [],
    headers: config.server.headers,
    periodSeconds: Math.max(1, Math.round(config.schedulePeriodMs / 1000)),
    ...(options.host === undefined ? {} : { host: checkedHost(options.host) }),
  };
  checkRecipeTexts(input);
  if (edge === 'nginx') {
    const { nginxRecipe } = await import('../pure/edge/nginx.js');
    context.deps.stdout.write(nginxRecipe(input));
  } else {
    const { cloudflareRecipe, cloudflareRules } = await import('../pure/edge/cloudflare.js');
    context.deps.stdout.write(
      options.json ? `${JSON.stringify(cloudflareRules(input), null, 2)}\n` : cloudflareRecipe(input),
    );
  }
  context.setExitCode(0);
}

export function register(program: Command, context: CommandContext): void {
  program
    .command('edge')
    .description(
      "print the edge's recipe from the config: nginx lines or Cloudflare rules that let the monitors' addresses through and keep caches from serving an old copy of the exports",
    )
    .addArgument(new Argument('<edge>', 'what stands in front of the exports').choices(['nginx', 'cloudflare']))
    .addOption(configOption())
    .option('--host <name>', 'the public host name of the exports (Cloudflare: the rules match it too)')
    .option('--prefix <path>', 'the path the exports are published under', '/')
    .option('--json', 'cloudflare: the rules as JSON')
    .action((edge: 'nginx' | 'cloudflare', options: EdgeFlags) => printRecipe(context, edge, options));
}
