// What `ratefile check` reports: findings (errors and warnings), each tied to a place in the file and, inside an item, to that item.

export type Severity = 'error' | 'warning';

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

export interface CheckResult {
  /** The file path or URL as given. */
  target: string;
  /** Items found; undefined when the file could not be read or parsed that far. */
  items?: number;
  findings: Finding[];
}

export const errorCount = (result: CheckResult): number => result.findings.filter((f) => f.severity === 'error').length;
export const warningCount = (result: CheckResult): number => result.findings.filter((f) => f.severity === 'warning').length;
export const passes = (result: CheckResult): boolean => errorCount(result) === 0;

/** `item 3 (BTC→SBERRUB, MSK)`. */
export function describeItem(item: ItemRef): string {
  const direction = item.from !== undefined || item.to !== undefined ? `${item.from ?? '?'}→${item.to ?? '?'}` : undefined;
  const parts = [direction, item.city].filter((part): part is string => part !== undefined && part !== '');
  return `item ${item.index}${parts.length > 0 ? ` (${parts.join(', ')})` : ''}`;
}

/** Line offsets of a text, to turn a character index into a line and column (both 1-based). */
export function positions(text: string): (index: number) => { line: number; column: number } {
  const starts = [0];
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) starts.push(i + 1);
  return (index) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (starts[middle]! <= index) low = middle;
      else high = middle - 1;
    }
    return { line: low + 1, column: index - starts[low]! + 1 };
  };
}
