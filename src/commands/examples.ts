// The `Examples:` block that ends every command's --help: two to four invocations that work on the demo config
// (ratefile.config.yaml: BTC → SBERRUB, the cash offices of USDTTRC20 → CASHRUB), each with what it does.
// One table, so a reviewer reads them together; test/unit/commands/help.test.ts parses every line with the program.
import type { Command } from 'commander';

/** An invocation as typed (a `>` redirect allowed at the end) and one line saying what it does. */
export type Example = readonly [line: string, what: string];

/** By command path: `explain`, `archive verify`. */
export const examples: Readonly<Record<string, readonly Example[]>> = {
  init: [
    ['ratefile init', 'write a starter config, the three export templates and example quotes here'],
    ['ratefile init my-exchanger', 'the same in a new folder my-exchanger/'],
  ],
  validate: [
    ['ratefile validate', 'check ratefile.config.yaml and its templates: every problem at once, with its line'],
    ['ratefile validate --config ratefile.config.yaml', 'the same for a config named on the line'],
  ],
  build: [
    ['ratefile build', 'price every direction once and write the exports to the output folder (public/)'],
    ['ratefile build --dry-run', 'print the files this config makes without writing them'],
    ['ratefile build --out /var/www/rates', 'write them to another folder'],
  ],
  start: [
    ['ratefile start', 'build now, rebuild on the schedule, serve the exports and the dashboard on 127.0.0.1:8080'],
    ['ratefile start --port 9000', 'the same on port 9000'],
    ['ratefile start --no-serve', 'build on the schedule only, for nginx or S3 to serve public/'],
  ],
  status: [
    ['ratefile status', 'the last build, the sources, and every direction held back with its reason'],
    ['ratefile status --json', 'the same as JSON (what /healthz serves)'],
    ['ratefile status --rate BTC SBERRUB', "BTC → SBERRUB's published rate over the archive's window"],
  ],
  explain: [
    ['ratefile explain BTC SBERRUB', "how BTC → SBERRUB's rate comes about: quotes, chain, margin, rounding, reserve"],
    ['ratefile explain USDTTRC20 CASHRUB --city MSK', 'only the Moscow office of a cash direction'],
    ['ratefile explain BTC SBERRUB --export reffile', 'only what reffile.xml publishes for it'],
  ],
  pause: [
    ['ratefile pause BTC SBERRUB --until 2h --reason "bank maintenance"', 'withhold BTC → SBERRUB for two hours'],
    ['ratefile pause USDTTRC20 CASHRUB --city SPB', 'withhold only the St Petersburg office, until resumed'],
  ],
  resume: [
    ['ratefile resume BTC SBERRUB', 'publish BTC → SBERRUB again from the next build'],
    ['ratefile resume USDTTRC20 CASHRUB --city SPB', 'publish the St Petersburg office again'],
  ],
  maintenance: [
    ['ratefile maintenance', 'tell whether maintenance is on'],
    ['ratefile maintenance on', 'publish every export empty from the next build'],
    ['ratefile maintenance off', 'publish normally again'],
  ],
  accept: [
    ['ratefile accept BTC SBERRUB', 'publish BTC → SBERRUB at the new rate the jump guard held back'],
    ['ratefile accept USDTTRC20 CASHRUB --config ratefile.config.yaml', 'the same for a config named on the line'],
  ],
  check: [
    ['ratefile check public/parserfile.xml', 'check an export against the standard'],
    ['ratefile check https://example.com/rates.xml --monitor bestchange', "what BestChange's parser reads of a file"],
    ['ratefile check public/parserfile.xml --strict --json', 'every warning an error, the findings as JSON'],
    ['ratefile check --links', "open every item's <url> of the config's exports"],
  ],
  at: [
    ['ratefile at now BTC SBERRUB', 'what each export serves for BTC → SBERRUB now, and whether its record verifies'],
    ['ratefile at 2026-12-02T14:03:00Z BTC SBERRUB --export parserfile.xml', 'what parserfile.xml served then'],
    ['ratefile at 2026-12-02T14:03:00Z --export parserfile.xml --out served.xml', 'the exact file served then'],
  ],
  archive: [
    ['ratefile archive verify', 'check every record of the archive'],
    ['ratefile archive keygen --out operator-key.pem', 'make an operator key that signs the records'],
    ['ratefile archive key', 'print its public half, for whoever verifies'],
  ],
  'archive verify': [
    ['ratefile archive verify', 'check every record: hash, chain, blobs, signatures, nothing cut'],
    ['ratefile archive verify --rebuild --json', 'also rebuild every export at every record; the result as JSON'],
  ],
  'archive key': [
    ['ratefile archive key', 'print the public half of archive.key'],
    ['ratefile archive key --config ratefile.config.yaml', 'the same for a config named on the line'],
  ],
  'archive keygen': [
    ['ratefile archive keygen --out operator-key.pem', 'a new key in operator-key.pem (owner-only)'],
    ['ratefile archive keygen -o /etc/ratefile/key.pem', 'the same elsewhere; set archive.key to it'],
  ],
  quote: [
    ['ratefile quote BTC SBERRUB 0.05', 'the signed quote of BTC → SBERRUB for 0.05 BTC'],
    ['ratefile quote USDTTRC20 CASHRUB 1000 --city MSK', 'for 1000 USDT at the Moscow office'],
  ],
  serve: [
    ['ratefile serve', 'serve the output folder on 127.0.0.1:8080 (only the exports)'],
    ['ratefile serve --port 9000 --host 0.0.0.0', 'on port 9000 of every interface, for monitors polling directly'],
  ],
  publish: [
    ['ratefile publish', "upload the exports changed since the last upload to the config's S3 bucket"],
    ['ratefile publish --force', 'upload every export'],
  ],
  edge: [
    ['ratefile edge nginx --host rates.example.com', 'the nginx lines for the exports'],
    ['ratefile edge cloudflare --host rates.example.com --json', 'the Cloudflare rules, as JSON'],
  ],
  probe: [
    ['ratefile probe https://rates.example.com/parserfile.xml', 'fetch it 20 times as a monitor does'],
    ['ratefile probe https://rates.example.com/parserfile.xml -n 5 --format classic', 'five times, as classic XML'],
  ],
  alert: [
    ['ratefile alert test', 'send a test message to every channel of alerts: and say which arrived'],
    ['ratefile alert test --config ratefile.config.yaml', 'the same for a config named on the line'],
  ],
  schema: [
    ['ratefile schema > ratefile.schema.json', 'the config schema, for the editor (see the first line of the config)'],
    ['ratefile schema --template > template.schema.json', 'the schema of export templates'],
  ],
  completion: [
    ['ratefile completion bash > /etc/bash_completion.d/ratefile', "bash: commands, options and the config's codes"],
    ['ratefile completion zsh > "${fpath[1]}/_ratefile"', 'zsh (start a new shell after)'],
    ['ratefile completion fish > ~/.config/fish/completions/ratefile.fish', 'fish'],
  ],
};

/** The command's path below the program: `explain`, `archive verify`. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** Adds each command's Examples block (to every command below `parent`, recursively). */
export function addExamples(parent: Command): void {
  for (const command of parent.commands) {
    const list = examples[commandPath(command)];
    if (list) {
      const lines = list.map(([line, what]) => `  $ ${line}\n      ${what}`);
      command.addHelpText('after', `\nExamples:\n${lines.join('\n')}`);
    }
    addExamples(command);
  }
}
