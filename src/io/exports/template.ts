// Export templates: one declarative YAML file per export in templates/, read and checked here.
import { readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { z } from 'zod';
import { percentToFraction } from '../../base/decimal.js';
import { quoteValue, RatefileError } from '../../base/errors.js';
import { currencyCode, describeValue, percentage, tag, text } from '../../base/config/fields.js';
import { formatProblem, readYamlFile, validateYaml, type YamlFile } from '../../base/config/yaml.js';
import { closest } from '../../base/config/problems.js';
import type { ExportTemplate } from '../../model/config.js';
import { exportFormats, formatExtension, type ExportFormat } from '../../model/formats.js';
import { aliasProblems, outputProblems, templateFormat } from '../../pure/exports/template-check.js';
import { loadProfiles } from '../monitors/load.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';

const placeholders = ['from', 'to', 'city'] as const;

export const templateSchema = z
  .strictObject({
    description: z.string().optional().describe('What this export is for; shown nowhere in the file itself.'),
    format: z
      .enum(exportFormats, {
        error: (issue) => `expected one of ${exportFormats.join(', ')}, got ${describeValue(issue.input)}`,
      })
      .default('classic')
      .describe(
        "File format: classic (the estandards XML every monitor reads), eref-1.1 (BestChange EREF 1.1 XML), json (jsons.info), or premium-rates / premium-reserves (Premium Exchanger's rate and reserve from file).",
      ),
    file: text(
      /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.(xml|json|txt)$/,
      'a file name like "rates-1.1.xml", "rates.json" or "premium-rates.txt" (letters, digits, "-", "_", "."; no folder)',
    )
      .optional()
      .describe(
        'Name of the file written; default <template name>.xml, .json for the json format, .txt for the premium ones.',
      ),
    monitor: text(/^[a-z0-9][a-z0-9-]*$/, 'a monitor profile name like "moneyswap" (data/monitors/<name>.yaml)')
      .optional()
      .describe(
        'Write this export for one monitor: its profile (data/monitors/<name>.yaml) sets the format (unless format: names another it reads), maps its codes and adapts fees, rates and limits to what it reads.',
      ),
    include: z
      .strictObject({ tags: z.array(tag).min(1).describe('Only directions carrying at least one of these tags.') })
      .optional(),
    exclude: z
      .strictObject({ tags: z.array(tag).min(1).describe('Leave out directions carrying any of these tags.') })
      .optional(),
    aliases: z
      .record(currencyCode, currencyCode)
      .default({})
      .describe('Code published in place of a currency code, e.g. USDTTRC20: USDTTRC.'),
    markup: percentage.default('0%').describe('Partner markup against the client, on top of each direction rate.'),
    url: text(
      /^https?:\/\/\S+$/,
      'an http(s) URL pattern like "https://exchanger.example/?cur_from={from}&cur_to={to}"',
    )
      .refine(
        (pattern) =>
          [...pattern.matchAll(/\{(\w*)\}/g)].every((match) => (placeholders as readonly string[]).includes(match[1]!)),
        {
          error: (issue) =>
            `expected only the placeholders ${placeholders.map((p) => `{${p}}`).join(', ')}, got ${describeValue(issue.input)}`,
        },
      )
      .optional()
      .describe('Pattern of a <url> element added to every item.'),
    private: z
      .boolean()
      .optional()
      .describe(
        'The file name is a secret (e.g. a Premium file only your engine fetches): shown as *** on the dashboard, /healthz, /metrics and in the status; file: must then carry a random token of 16 or more letters and digits.',
      ),
  })
  .describe('ratefile export template');

const yamlExtension = /\.ya?ml$/i;
/**
 * A template's file name: its name (the file minus `.yaml`/`.yml`, dots allowed: `rates.v2`, `aff-eref-1.1`) plus
 * `.xml` or `.json` is its export's default file, so the name takes what `exportFileName` takes.
 */
const templateFileName = /^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*\.ya?ml$/i;

type TemplateData = z.output<typeof templateSchema>;

/**
 * Read every `<name>.yaml` in the templates folder, sorted by name. Problems of every file come back
 * together, each line starting with the file it is in, so the caller can report them with the config's.
 */
export async function loadTemplates(
  dir: string,
  currencyCodes: ReadonlySet<string>,
  baseDir: string,
  profilesDir?: string,
): Promise<{ templates: ExportTemplate[]; problems: string[] }> {
  const folder = relative(baseDir, dir) || dir;
  let entries: string[];
  try {
    entries = await readdir(dir);
  } catch (cause) {
    return { templates: [], problems: [`${folder}: cannot read the templates folder: ${(cause as Error).message}`] };
  }
  const { names, problems, yamlFiles } = templateFiles(entries, dir, baseDir);
  if (yamlFiles === 0) return { templates: [], problems: [`${folder}: no export templates (<name>.yaml) found`] };

  const templates: ExportTemplate[] = [];
  // Two templates writing one file would overwrite each other in every build; compared without case
  // because parserfile.xml and ParserFile.xml are one file on some filesystems and to some monitors.
  const writers = new Map<string, string>();
  for (const fileName of names) {
    const label = relative(baseDir, join(dir, fileName));
    const file = await readTemplateFile(join(dir, fileName), label, problems);
    if (file === undefined) continue;
    const name = fileName.replace(yamlExtension, '');
    const checked = await checkTemplate(file, name, currencyCodes, profilesDir);
    const { data, lines, output } = checked;
    const other = writers.get(output.toLowerCase());
    if (other === undefined) writers.set(output.toLowerCase(), label);
    else lines.push(`writes ${output}, as ${other} does; keep one of the two templates`);
    problems.push(...lines.map((line) => `${label}: ${line}`));
    if (lines.length > 0 || !data) continue;
    templates.push(templateOf(name, data, checked));
  }
  return { templates, problems };
}

/**
 * The folder's template files by name, and a problem for each YAML file misnamed: every YAML file is a template or a
 * problem, never skipped unseen; dotfiles (editor locks, drafts) are hidden.
 */
function templateFiles(
  entries: readonly string[],
  dir: string,
  baseDir: string,
): { names: string[]; problems: string[]; yamlFiles: number } {
  const yamlFiles = entries.filter((name) => !name.startsWith('.') && yamlExtension.test(name)).sort();
  const names = yamlFiles.filter((name) => templateFileName.test(name));
  const problems: string[] = yamlFiles
    .filter((name) => !templateFileName.test(name))
    .map(
      (name) =>
        `${relative(baseDir, join(dir, name))}: expected a template file name of letters, digits, "-", "_" and "." (its export is <name>.xml), got ${quoteValue(name)}`,
    );
  return { names, problems, yamlFiles: yamlFiles.length };
}

/** A template's YAML, or undefined when it cannot be read or parsed (its problem lines added to `problems`). */
async function readTemplateFile(path: string, label: string, problems: string[]): Promise<YamlFile | undefined> {
  try {
    return await readYamlFile(path, label);
  } catch (error) {
    if (!(error instanceof RatefileError)) throw error;
    problems.push(
      ...(error.details.length > 0 ? error.details.map((line) => `${error.message}: ${line}`) : [error.message]),
    );
    return undefined;
  }
}

/** A template checked: its data when valid, its problem lines, and the format, file and monitor it comes to. */
interface CheckedTemplate {
  data: TemplateData | undefined;
  lines: string[];
  format: ExportFormat;
  output: string;
  monitor: MonitorProfile | undefined;
}

/** Every problem of one template file, in the order they are shown: schema, aliases, monitor, format, file. */
async function checkTemplate(
  file: YamlFile,
  name: string,
  currencyCodes: ReadonlySet<string>,
  profilesDir: string | undefined,
): Promise<CheckedTemplate> {
  const { data, problems: schemaProblems } = validateYaml(file, templateSchema);
  const lines = schemaProblems.map((problem) => formatProblem(file, problem));
  lines.push(...aliasProblems(file, currencyCodes));
  const monitor = data?.monitor === undefined ? undefined : await monitorOf(data.monitor, file, lines, profilesDir);
  const format = templateFormat(file, data, monitor, lines);
  const output = data?.file ?? `${name}.${formatExtension(format)}`;
  lines.push(...outputProblems(file, data, format, output));
  return { data, lines, format, output, monitor };
}

/** The model's template from a valid file. */
function templateOf(name: string, data: TemplateData, checked: CheckedTemplate): ExportTemplate {
  const { output, format, monitor } = checked;
  return {
    name,
    file: output,
    format,
    ...(data.description === undefined ? {} : { description: data.description }),
    ...(data.include ? { includeTags: data.include.tags } : {}),
    excludeTags: data.exclude?.tags ?? [],
    // The monitor's code map under the template's own aliases.
    aliases: monitor === undefined ? data.aliases : { ...monitor.codes, ...data.aliases },
    markup: percentToFraction(data.markup),
    ...(data.url === undefined ? {} : { url: data.url }),
    ...(monitor === undefined ? {} : { monitor }),
    ...(data.private === true ? { private: true } : {}),
  };
}

/** The shipped profile a template names, or a problem line naming the profiles there are. */
async function monitorOf(
  name: string,
  file: YamlFile,
  lines: string[],
  profilesDir: string | undefined,
): Promise<MonitorProfile | undefined> {
  const profiles = await loadProfiles(profilesDir);
  const profile = profiles.get(name);
  if (profile === undefined) {
    const hint = closest(name, profiles.keys());
    lines.push(
      formatProblem(file, {
        path: ['monitor'],
        message: `unknown monitor ${quoteValue(name)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected one of ${[...profiles.keys()].join(', ')}`,
      }),
    );
  }
  return profile;
}
