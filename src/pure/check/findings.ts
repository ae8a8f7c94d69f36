// What `ratefile check` reports: findings (errors and warnings), each tied to a place in the file and, inside an item, to that item.
import type { XmlElement } from './tree.js';
import { directionName } from '../../base/words.js';

/**
 * error: a monitor drops or misreads the item or the file. warning: departs from the written standard, or looks
 * wrong, in a way monitors read without complaint (see the README's table of rules). info: what a monitor does that
 * changes nothing a client sees (`check --monitor`: a rate rounded in its last decimal, a zero fee not read).
 */
export type Severity = 'error' | 'warning' | 'info';

/**
 * What a rule reports. `tolerated`: a departure from the written standard that monitors read without complaint
 * (element order, a rate side below 1, a limit no order can meet, an unknown label): a warning on anyone's file, an error when
 * ratefile judges its own files before publishing (`CheckOptions.strict`), as it did before monitors were the measure.
 */
export type Level = 'error' | 'warning' | 'tolerated';

/** A finding of one item, at its level (`tolerated` is a warning or, for ratefile's own files, an error). */
export type Report = (level: Level, rule: string, message: string, element?: XmlElement) => void;

export interface CheckOptions {
  /** Judge as ratefile's own file (the publish gate): tolerated departures from the standard are errors. */
  strict?: boolean;
  /** Currency codes known besides the shipped list: a live BestChange list (bm_cycodes.dat of a feed). */
  codes?: ReadonlySet<string>;
}

export const severityOf = (level: Level, options: CheckOptions): 'error' | 'warning' =>
  level === 'tolerated' ? (options.strict ? 'error' : 'warning') : level;

/** `check --strict`: every warning counts as failing, so each becomes an error. */
export function everyWarningFails(result: CheckResult): CheckResult {
  return {
    ...result,
    findings: result.findings.map((finding) =>
      finding.severity === 'warning' ? { ...finding, severity: 'error' } : finding,
    ),
  };
}

/** The item a finding is in: its position among the file's items (1-based) and its direction. */
export interface ItemRef {
  index: number;
  from?: string;
  to?: string;
  city?: string;
}

export interface Finding {
  severity: Severity;
  /** A stable name of the rule, for scripts: `xml`, `element-order`, `number`, `rate-form`, `label`… */
  rule: string;
  message: string;
  line?: number;
  column?: number;
  item?: ItemRef;
  /** The element the finding is about, inside the item. */
  element?: string;
}

/** How many items the monitor reads as written, drops, or reads as something else. */
export interface MonitorReading {
  monitor: string;
  items: number;
  read: number;
  dropped: number;
  misread: number;
}

export interface CheckResult {
  /** The file path or URL as given. */
  target: string;
  /** Items found; undefined when the file could not be read or parsed that far. */
  items?: number;
  findings: Finding[];
  /** `check --monitor`: how many items that monitor reads, drops and misreads (check/monitor.ts). */
  monitor?: MonitorReading;
}

export const errorCount = (result: CheckResult): number => result.findings.filter((f) => f.severity === 'error').length;
export const warningCount = (result: CheckResult): number =>
  result.findings.filter((f) => f.severity === 'warning').length;
export const infoCount = (result: CheckResult): number => result.findings.filter((f) => f.severity === 'info').length;
export const passes = (result: CheckResult): boolean => errorCount(result) === 0;

/** `item 3 (BTC → SBERRUB, MSK)`. */
export function describeItem(item: ItemRef): string {
  const direction =
    item.from !== undefined || item.to !== undefined ? directionName(item.from ?? '?', item.to ?? '?') : undefined;
  const parts = [direction, item.city].filter((part): part is string => part !== undefined && part !== '');
  return `item ${item.index}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/**
 * A character index of a text as a line and column (both 1-based). Lines are counted only when asked, from the
 * last index asked for: findings come roughly in document order, and most files have none, so a big file is
 * neither scanned for line ends nor given an array of them.
 */
export function positions(text: string): (index: number) => { line: number; column: number } {
  // The line of index `at` and the index its line starts at.
  let at = 0;
  let line = 1;
  let start = 0;
  return (index) => {
    if (index >= at) {
      for (let i = text.indexOf('\n', at); i !== -1 && i < index; i = text.indexOf('\n', i + 1)) {
        line += 1;
        start = i + 1;
      }
    } else if (index < start) {
      // Back over the line ends in [index, start); the first one before index ends the line before index's.
      let i = start - 1;
      while (i >= index) {
        line -= 1;
        i = i === 0 ? -1 : text.lastIndexOf('\n', i - 1);
      }
      start = i + 1;
    }
    at = index;
    return { line, column: index - start + 1 };
  };
}
