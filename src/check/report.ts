// The report of `ratefile check`: readable lines per file, or one JSON document for scripts.
import { escapeControls } from '../errors.js';
import {
  describeItem,
  errorCount,
  passes,
  warningCount,
  type CheckResult,
  type Finding,
  type MonitorReading,
} from './findings.js';
import { plural } from '../words.js';

export function formatFinding(finding: Finding): string {
  const where = [
    finding.line === undefined
      ? undefined
      : `line ${finding.line}${finding.column === undefined ? '' : `:${finding.column}`}`,
    finding.item ? describeItem(finding.item) : undefined,
  ].filter((part) => part !== undefined);
  return `${finding.severity === 'error' ? 'error  ' : 'warning'} ${where.length > 0 ? `${where.join(', ')}: ` : ''}${finding.message}`;
}

/** `parserfile.xml: 41 items, 2 errors, 1 warning` and one indented line per finding. */
export function formatResult(result: CheckResult): string {
  const errors = errorCount(result);
  const warnings = warningCount(result);
  const counts = [
    ...(result.items === undefined ? [] : [plural(result.items, 'item')]),
    ...(errors > 0 ? [plural(errors, 'error')] : []),
    ...(warnings > 0 ? [plural(warnings, 'warning')] : []),
    ...(errors === 0 && warnings === 0 ? ['clean'] : errors === 0 ? ['passes'] : ['FAILS']),
  ];
  // Findings quote what a file (anyone's) holds: control characters are escaped, never sent to the terminal.
  const lines = [
    `${result.target}: ${counts.join(', ')}`,
    ...(result.monitor === undefined ? [] : [`  ${monitorLine(result.monitor)}`]),
    ...result.findings.map((finding) => `  ${formatFinding(finding)}`),
  ];
  return `${lines.map(escapeControls).join('\n')}\n`;
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
  const text = results.map(formatResult).join('');
  if (results.length < 2) return text;
  const failing = results.filter((result) => !passes(result)).length;
  const warned = results.filter((result) => passes(result) && warningCount(result) > 0).length;
  return `${text}${plural(results.length, 'file')} checked: ${failing} with errors, ${warned} with warnings only, ${results.length - failing - warned} clean\n`;
}

export function resultsJson(results: readonly CheckResult[]): string {
  return `${JSON.stringify(
    {
      ok: results.every(passes),
      files: results.map((result) => ({
        target: result.target,
        ok: passes(result),
        ...(result.items === undefined ? {} : { items: result.items }),
        errors: errorCount(result),
        warnings: warningCount(result),
        ...(result.monitor === undefined ? {} : { monitor: result.monitor }),
        findings: result.findings,
      })),
    },
    null,
    2,
  )}\n`;
}
