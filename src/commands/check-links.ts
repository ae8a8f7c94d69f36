// What `ratefile check --links` runs (imported only then): the links of the items of export files (the ones named,
// or the config's exports whose template has `url:`, as published in its output folder), each fetched
// (src/io/links/fetch.ts) and judged (src/pure/links/links.ts); the ones that do not open a page are listed.
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { escapeControls, quoteValue, RatefileError } from '../base/errors.js';
import { defaultUserAgent } from '../base/requests.js';
import { redactSecrets } from '../base/secrets.js';
import { plural } from '../base/words.js';
import { checkLinks, type CheckedLink } from '../io/links/fetch.js';
import { itemLinks, problemNames, type ItemLink } from '../pure/links/links.js';
import type { CommandContext } from './context.js';

export interface LinksFlags {
  config: string;
  json?: boolean;
  timeout: number;
  linkTimeout: number;
  concurrency: number;
}

/** An export file's text: from disk, or over HTTP as `check URL` reads it (its timeout, size cap and messages). */
async function exportText(context: CommandContext, target: string, timeoutMs: number): Promise<string> {
  if (!/^https?:\/\//i.test(target))
    return readFile(resolve(context.deps.cwd, target), 'utf8').catch((cause: unknown) => {
      throw new RatefileError('E_USAGE', `${quoteValue(target)}: cannot read it: ${(cause as Error).message}`);
    });
  const { fetchTarget } = await import('../io/check/target.js');
  const { bytes, findings } = await fetchTarget(target, {
    fetch: context.deps.fetch,
    cwd: context.deps.cwd,
    timeoutMs,
    userAgent: defaultUserAgent(),
  });
  if (bytes !== undefined) return Buffer.from(bytes).toString('utf8');
  const errors = findings.filter((finding) => finding.severity === 'error').map((finding) => finding.message);
  throw new RatefileError('E_SOURCE', `${quoteValue(target)}: ${errors.join('; ')}`);
}

/**
 * The files whose links are checked: the ones named, else the config's exports with a `url:` template; and the
 * config's User-Agent then (`userAgent:`), else ratefile's own.
 */
async function linkFiles(context: CommandContext, targets: readonly string[], flags: LinksFlags) {
  if (targets.length > 0) {
    const files = targets.map((target) => ({
      name: target,
      read: () => exportText(context, target, flags.timeout * 1000),
    }));
    return { files, userAgent: defaultUserAgent() };
  }
  const config = await context.load(flags.config);
  const linked = config.exports.filter((entry) => entry.url !== undefined);
  if (linked.length === 0)
    throw new RatefileError(
      'E_USAGE',
      `check --links: no export of ${context.shown(config.file)} has a url: template, and no file was named`,
    );
  const files = linked.map((entry) => ({
    name: entry.file,
    read: () =>
      readFile(join(config.output, entry.file), 'utf8').catch(() => {
        throw new RatefileError(
          'E_USAGE',
          `check --links: ${context.shown(join(config.output, entry.file))} is not there: run \`ratefile build\` first`,
        );
      }),
  }));
  return { files, userAgent: config.userAgent };
}

/** Every link of the files, once each, with the items (and files) that carry it. */
async function collectLinks(files: { name: string; read: () => Promise<string> }[], many: boolean) {
  const byUrl = new Map<string, ItemLink>();
  for (const file of files)
    for (const link of itemLinks(await file.read())) {
      const entry = byUrl.get(link.url) ?? { url: link.url, items: [] };
      entry.items.push(...link.items.map((item) => (many ? `${file.name}: ${item}` : item)));
      byUrl.set(link.url, entry);
    }
  return [...byUrl.values()];
}

const safe = (text: string) => escapeControls(redactSecrets(text));

function reportLines(checked: readonly CheckedLink[]): string[] {
  const bad = checked.filter((link) => !link.ok);
  const lines = bad.flatMap((link) => {
    const items = link.items.length > 3 ? `${link.items.slice(0, 3).join(', ')}, …` : link.items.join(', ');
    return [
      `FAIL ${problemNames[link.problem!]}: ${link.url}`,
      `     ${link.detail} — ${plural(link.items.length, 'item')}: ${items}`,
    ];
  });
  const items = checked.reduce((sum, link) => sum + link.items.length, 0);
  lines.push(
    `${plural(checked.length, 'link')} of ${plural(items, 'item')} checked: ${checked.length - bad.length} open a page, ${bad.length} do not.`,
  );
  return lines.map(safe);
}

export async function checkItemLinks(context: CommandContext, targets: readonly string[], flags: LinksFlags) {
  const { files, userAgent } = await linkFiles(context, targets, flags);
  const links = await collectLinks(files, files.length > 1);
  // A browser's form (some sites answer a bare robot's name with a challenge), naming ratefile and what it does.
  const checked = await checkLinks(links, {
    fetch: context.deps.fetch,
    userAgent: `Mozilla/5.0 (compatible; ${userAgent}; checks that an exchange direction's link opens)`,
    timeoutMs: flags.linkTimeout * 1000,
    concurrency: flags.concurrency,
  });
  const out = context.deps.stdout;
  if (flags.json)
    out.write(
      `${JSON.stringify(
        checked.map(({ fetched, ...link }) => ({
          ...link,
          chain: fetched.chain,
          status: fetched.status,
          ms: fetched.ms,
        })),
        null,
        2,
      )}\n`,
    );
  else out.write(`${reportLines(checked).join('\n')}\n`);
  context.setExitCode(checked.every((link) => link.ok) ? 0 : 1);
}
