// The checks of one export template that look past its schema (aliases, the format a monitor reads, the file name),
// each giving problem lines; template.ts reads the files and runs them. Pure.
import { quoteValue } from '../../base/errors.js';
import { closest } from '../../base/config/problems.js';
import { formatProblem, type YamlFile } from '../../base/config/yaml.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';
import { formatExtension, type ExportFormat } from '../../model/formats.js';

/** A private export's name: a run of 16+ letters and digits with a digit in it, a token no one guesses. */
const unguessable = /(?=[A-Za-z0-9]*[0-9])[A-Za-z0-9]{16,}/;

/**
 * The aliases that would publish a wrong code: of an unknown currency, the code itself, another configured currency,
 * one alias for two codes. Checked on the raw file so these problems show up together with any schema problem.
 */
export function aliasProblems(file: YamlFile, currencyCodes: ReadonlySet<string>): string[] {
  const lines: string[] = [];
  const raw = file.data as { aliases?: unknown } | undefined;
  const aliases = Object.entries(typeof raw?.aliases === 'object' && raw.aliases !== null ? raw.aliases : {}).filter(
    (entry): entry is [string, string] => typeof entry[1] === 'string',
  );
  for (const [code, alias] of aliases) {
    if (!currencyCodes.has(code)) {
      const hint = closest(code, currencyCodes);
      lines.push(
        formatProblem(file, {
          path: ['aliases', code],
          message: `unknown currency ${quoteValue(code)}${hint ? ` (did you mean "${hint}"?)` : ''}; expected a key of currencies`,
        }),
      );
    } else if (alias === code) {
      lines.push(formatProblem(file, { path: ['aliases', code], message: 'alias is the same as the code' }));
    } else if (currencyCodes.has(alias)) {
      lines.push(
        formatProblem(file, {
          path: ['aliases', code],
          message: `alias ${quoteValue(alias)} is another configured currency; its rates would be published under two meanings`,
        }),
      );
    }
  }
  for (const [code, alias] of aliases) {
    const other = aliases.find(([otherCode, otherAlias]) => otherAlias === alias && otherCode < code);
    if (other)
      lines.push(
        formatProblem(file, {
          path: ['aliases', code],
          message: `alias ${quoteValue(alias)} is already used for ${quoteValue(other[0])}`,
        }),
      );
  }
  return lines;
}

/** The format given, or the monitor's first when none is given; a format the monitor does not read is a problem. */
export function templateFormat(
  file: YamlFile,
  data: { format: ExportFormat } | undefined,
  monitor: MonitorProfile | undefined,
  lines: string[],
): ExportFormat {
  const given = (file.data as { format?: unknown } | undefined)?.format;
  const format: ExportFormat = data?.format ?? 'classic';
  if (monitor === undefined) return format;
  if (given === undefined) return monitor.formats[0]!;
  if (!(monitor.formats as readonly ExportFormat[]).includes(format))
    lines.push(
      formatProblem(file, {
        path: ['format'],
        message: `${monitor.title} reads ${monitor.formats.join(' or ')}, not ${format}`,
      }),
    );
  return format;
}

/** What the file name and the format forbid: a wrong extension, a url outside classic, a guessable private name. */
export function outputProblems(
  file: YamlFile,
  data: { file?: string | undefined; url?: string | undefined; private?: boolean | undefined } | undefined,
  format: ExportFormat,
  output: string,
): string[] {
  const lines: string[] = [];
  const extension = formatExtension(format);
  if (!output.endsWith(`.${extension}`)) {
    lines.push(
      formatProblem(file, {
        path: ['file'],
        message: `expected a name ending in .${extension} for the ${format} format, got ${quoteValue(output)}`,
      }),
    );
  }
  if (data?.url !== undefined && format !== 'classic') {
    lines.push(
      formatProblem(file, {
        path: ['url'],
        message: `only the classic format has a <url> element; ${format} has none`,
      }),
    );
  }
  if (data?.private === true && !unguessable.test(data.file ?? '')) {
    lines.push(
      formatProblem(file, {
        path: ['file'],
        message: `a private export needs a file name with a random token of 16 or more letters and digits (e.g. from "openssl rand -hex 16"), got ${quoteValue(data.file ?? output)}`,
      }),
    );
  }
  return lines;
}
