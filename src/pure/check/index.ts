// The export-file checker: the standard's rules for any exchanger's export file, used by `ratefile check` and before every publish.
export { checkExport } from './export.js';
export { checkBytes, contentTypeFindings, type BytesOptions } from './bytes.js';
export {
  describeItem,
  errorCount,
  infoCount,
  everyWarningFails,
  passes,
  warningCount,
  type CheckOptions,
  type CheckResult,
  type Finding,
  type ItemRef,
  type Severity,
} from './findings.js';
export {
  formatFinding,
  formatResult,
  formatResults,
  reportWriter,
  resultsJson,
  verdictOf,
  writeFileReport,
  type Verdict,
} from './report.js';
