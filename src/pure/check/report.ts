// The report of `ratefile check`: readable lines per file, or one JSON document for scripts.
import { escapeControls } from '../../base/errors.js';
import {
  describeItem,
  errorCount,
  infoCount,
  passes,
  warningCount,
  type CheckResult,
  type Finding,
  type MonitorReading,
} from './findings.js';
import { plural } from '../../base/words.js';

export function formatFinding(finding: Finding): string {
  const where = [
    finding.line === undefined
      ? undefined
      : `line ${finding.line}${finding.column === undefined ? '' : `:${finding.column}`}`,
    finding.item ? describeItem(finding.item) : undefined,
  ].filter((part) => part !== undefined);
  return `${finding.severity.padEnd(7)} ${where.length > 0 ? `${where.join(', ')}: ` : ''}${finding.message}`;
}

/** `parserfile.xml: 41 items, 2 errors, 1 warning` and one indented line per finding. */
export function formatResult(result: CheckResult): string {
  let text = '';
  writeResultText(result, (part) => (text += part));
  return text;
}

/** formatResult's text, a thousand findings at a time: a file's findings are never one string. */
function writeResultText(result: CheckResult, write: (text: string) => void): void {
  const errors = errorCount(result);
  const warnings = warningCount(result);
  const counts = [
    ...(result.items === undefined ? [] : [plural(result.items, 'item')]),
    ...(errors > 0 ? [plural(errors, 'error')] : []),
    ...(warnings > 0 ? [plural(warnings, 'warning')] : []),
    ...(infoCount(result) > 0 ? [`${infoCount(result)} info`] : []),
    ...(errors === 0 && warnings === 0 ? ['clean'] : errors === 0 ? ['passes'] : ['FAILS']),
  ];
  // Findings quote what a file (anyone's) holds: control characters are escaped, never sent to the terminal.
  const head = [
    `${result.target}: ${counts.join(', ')}`,
    ...(result.monitor === undefined ? [] : [`  ${monitorLine(result.monitor)}`]),
  ];
  write(`${head.map(escapeControls).join('\n')}\n`);
  const { findings } = result;
  for (let start = 0; start < findings.length; start += 1000) {
    const lines = findings.slice(start, start + 1000).map((finding) => escapeControls(`  ${formatFinding(finding)}`));
    write(`${lines.join('\n')}\n`);
  }
}

/** `moneyswap reads 10 of 12 items: 1 dropped, 1 misread`. */
function monitorLine(reading: MonitorReading): string {
  const lost = [
    ...(reading.dropped > 0 ? [`${reading.dropped} dropped`] : []),
    ...(reading.misread > 0 ? [`${reading.misread} misread`] : []),
  ];
  return `${reading.monitor} reads ${reading.read} of ${plural(reading.items, 'item')}${lost.length > 0 ? `: ${lost.join(', ')}` : ' as written'}`;
}

export function formatResults(results: readonly CheckResult[]): string {
  let text = '';
  const writer = reportWriter((part) => (text += part), false);
  for (const result of results) writer.add(result);
  writer.end();
  return text;
}

export function resultsJson(results: readonly CheckResult[]): string {
  let text = '';
  const writer = reportWriter((part) => (text += part), true);
  for (const result of results) writer.add(result);
  writer.end();
  return text;
}

/** One file's part of `--json`, written a few findings at a time: a file's findings are never one string. */
function writeFileJson(result: CheckResult, write: (text: string) => void): void {
  const head = JSON.stringify(
    {
      target: result.target,
      ok: passes(result),
      ...(result.items === undefined ? {} : { items: result.items }),
      errors: errorCount(result),
      warnings: warningCount(result),
      info: infoCount(result),
      ...(result.monitor === undefined ? {} : { monitor: result.monitor }),
    },
    null,
    2,
  );
  const indent = (text: string, spaces: string) => text.replace(/\n/g, `\n${spaces}`);
  const { findings } = result;
  write(`    ${indent(head.slice(0, -2), '    ')},\n      "findings": [${findings.length === 0 ? ']' : ''}`);
  for (let start = 0; start < findings.length; start += 1000) {
    const chunk = findings
      .slice(start, start + 1000)
      .map((finding) => indent(JSON.stringify(finding, null, 2), '        '));
    write(`${start === 0 ? '' : ','}\n        ${chunk.join(',\n        ')}`);
  }
  write(`${findings.length === 0 ? '' : '\n      ]'}\n    }`);
}

/** What the report's last line keeps of a file: whether it passes, and whether it warns. */
export interface Verdict {
  passes: boolean;
  warns: boolean;
}

export function verdictOf(result: CheckResult): Verdict {
  return { passes: passes(result), warns: warningCount(result) > 0 };
}

/** One file's part of the report (readable lines, or its entry in `--json`'s `files`, `first` without a comma). */
export function writeFileReport(
  result: CheckResult,
  json: boolean,
  first: boolean,
  write: (text: string) => void,
): void {
  if (!json) return writeResultText(result, write);
  write(first ? '{\n  "files": [\n' : ',\n');
  writeFileJson(result, write);
}

/**
 * The report written file by file, as each is checked: only each file's verdict is kept for the last line, never its
 * findings, so checking many files holds no more than the largest one (`ratefile check *.xml`). `--json` is one
 * document all the same: `files` written as they come, `ok` after them. `written` counts a file whose part was
 * written elsewhere (by a worker thread) with `writeFileReport`.
 */
export function reportWriter(
  write: (text: string) => void,
  json: boolean,
): {
  add: (result: CheckResult) => void;
  written: (verdict: Verdict) => void;
  files: () => number;
  end: () => boolean;
} {
  let files = 0;
  let failing = 0;
  let warned = 0;
  const written = (verdict: Verdict) => {
    files += 1;
    if (!verdict.passes) failing += 1;
    else if (verdict.warns) warned += 1;
  };
  return {
    add(result) {
      writeFileReport(result, json, files === 0, write);
      written(verdictOf(result));
    },
    written,
    files: () => files,
    end() {
      const ok = failing === 0;
      if (json) write(`${files === 0 ? '{\n  "files": []' : '\n  ]'},\n  "ok": ${ok}\n}\n`);
      else if (files >= 2)
        write(
          `${plural(files, 'file')} checked: ${failing} with errors, ${warned} with warnings only, ${files - failing - warned} clean\n`,
        );
      return ok;
    },
  };
}
