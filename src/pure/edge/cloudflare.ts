// `ratefile edge cloudflare`: the Cloudflare rules that let the monitors' robots through and keep the edge from
// serving an old copy, from the config: a WAF custom rule skipping the security features for the monitors'
// addresses on the export paths, IP Access rules (Bot Fight Mode on the Free plan cannot be skipped by a rule), a
// cache rule for the export paths, and the headers the origin sends. Expressions in the Rules language
// (https://developers.cloudflare.com/ruleset-engine/rules-language/): `http.request.uri.path in {"…"}`,
// `ip.src in {…}`. Pure: the input in, the rules out.
import { agentOnly, monitorAddresses, type EdgeInput } from './input.js';

/** A string literal of the Rules language: double quotes, `\` and `"` escaped. */
const literal = (text: string) => `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;

export interface CloudflareRules {
  /** The export paths, with the host when given. */
  exports: string;
  /** The exports fetched from a monitor's address: the WAF skip rule's expression; absent without addresses. */
  skip?: string;
  /** IP Access rules (Allow), one per monitor address. */
  ipAccess: { address: string; monitor: string }[];
  /** Monitors the config knows by user agent only: no rule can safely let them through. */
  agentOnly: string[];
  /** The headers the origin sends with every export. */
  headers: { 'Cache-Control': string; 'CDN-Cache-Control': string };
}

export function cloudflareRules(input: EdgeInput): CloudflareRules {
  const paths = `http.request.uri.path in {${input.paths.map(literal).join(' ')}}`;
  const exports = input.host === undefined ? `(${paths})` : `(http.host eq ${literal(input.host)} and ${paths})`;
  const addresses = monitorAddresses(input.monitors);
  const ips = `ip.src in {${addresses.map((entry) => entry.address).join(' ')}}`;
  return {
    exports,
    ...(addresses.length === 0 ? {} : { skip: `(${exports.slice(1, -1)} and ${ips})` }),
    ipAccess: addresses.map((entry) => ({ address: entry.address, monitor: entry.monitor })),
    agentOnly: agentOnly(input.monitors).map((monitor) => monitor.name),
    headers: { 'Cache-Control': input.headers.cacheControl, 'CDN-Cache-Control': input.headers.cdnCacheControl },
  };
}

function skipLines(rules: CloudflareRules): string[] {
  if (rules.skip === undefined)
    return ['1. WAF custom rule: none, the config gives no monitor an address (monitors: <name>: { address: … }).', ''];
  return [
    '1. WAF custom rule (Security → WAF → Custom rules → Create rule), first in the list:',
    '   Rule name: ratefile: the monitors fetch the exports',
    '   Expression:',
    `     ${rules.skip}`,
    '   Action: Skip — all remaining custom rules, rate limiting rules, managed rules, Super Bot Fight Mode',
    '   (Pro and up), Browser Integrity Check, Security Level and User Agent Blocking.',
    '',
    '2. IP Access rules (Security → WAF → Tools), action Allow: the only exemption Bot Fight Mode (Free plan)',
    '   honours, for the whole zone. Redo them whenever a monitor changes address.',
    ...rules.ipAccess.map(
      (entry) => `     ${entry.address.padEnd(20)} Allow   note "ratefile monitor ${entry.monitor}"`,
    ),
    '',
  ];
}

/** The text `ratefile edge cloudflare` prints. */
export function cloudflareRecipe(input: EdgeInput): string {
  const rules = cloudflareRules(input);
  const lines = [
    `# ratefile edge cloudflare: generated from ${input.configFile}. Generate it again after changing monitors:,`,
    '# the exports or server.headers. `--json` prints the same as data (for the API or Terraform).',
    '',
    ...skipLines(rules),
    '3. Cache rule (Caching → Cache Rules → Create rule), last in the list (a later rule overrides an earlier',
    '   one, such as a "Cache Everything" rule for the whole site):',
    '   Rule name: ratefile: the exports are never older than one build',
    '   Expression:',
    `     ${rules.exports}`,
    '   Cache eligibility: Eligible for cache; Edge TTL: "Use cache-control header if present, bypass cache if',
    `   not" (never "Ignore cache-control header and use this TTL"); Browser TTL: "Respect origin".`,
    '   Or, simplest: Cache eligibility: Bypass cache (every fetch reaches the origin).',
    '',
    '4. The headers the origin sends with every export (server.headers; ratefile start and serve send them):',
    `     Cache-Control: ${rules.headers['Cache-Control']}`,
    `     CDN-Cache-Control: ${rules.headers['CDN-Cache-Control']}`,
    '   Cloudflare honours CDN-Cache-Control over Cache-Control; without either, a "Cache Everything" rule keeps a',
    '   200 for 120 minutes.',
  ];
  if (rules.agentOnly.length > 0)
    lines.push(
      '',
      `Note: ${rules.agentOnly.join(', ')} ${rules.agentOnly.length === 1 ? 'has' : 'have'} no address in the config, only a user agent: a rule on the user agent`,
      'would let anyone who sends it through. Ask the monitor for its addresses and add them (address: in monitors:).',
    );
  return `${lines.join('\n')}\n`;
}
