// The publish gate's check of a Premium Exchanger file (a `.txt` export, src/pure/exports/premium.ts): every line in the
// form Premium's parser reads, every rate positive or the `0 = 0` of a direction not published. Pure.
import { quoteValue } from '../../base/errors.js';
import type { CheckResult, Finding } from './findings.js';

const decimal = '(0|[1-9][0-9]*)(\\.[0-9]+)?';
const rateLine = new RegExp(`^([^:=\\r\\n]+) : (${decimal}) = (${decimal})$`);
const reserveLine = new RegExp(`^([^:=\\r\\n]+) = (${decimal})$`);

/**
 * Whether a text is a Premium file: its first line is `TITLE : IN = OUT` or `TITLE = SUM` (no `<` or `{` before the
 * `=`, so no XML or JSON export reads as one). `ratefile check` tells the format by this, or by a file's `.txt` name.
 */
export function looksLikePremium(text: string): boolean {
  const first = text.slice(0, text.indexOf('\n') === -1 ? undefined : text.indexOf('\n'));
  return /^[^<{:=\r\n]+( : [^<{=\r\n]*)? = [^<{\r\n]*\r?$/.test(first);
}

/** `ratefile check` of a Premium file: the gate's errors, and its lines as the items. */
export function checkPremiumExport(bytes: Uint8Array, target: string): CheckResult {
  const text = Buffer.from(bytes).toString('utf8');
  const items = text === '' ? 0 : text.replace(/\n$/, '').split('\n').length;
  return { target, items, findings: checkPremiumFile(bytes) };
}

/** Errors of a Premium rates or reserves file, told apart by its first line; none for a file ratefile may publish. */
export function checkPremiumFile(bytes: Uint8Array): Finding[] {
  const text = Buffer.from(bytes).toString('utf8');
  if (text === '') return [];
  const findings: Finding[] = [];
  const error = (line: number, rule: string, message: string) =>
    findings.push({ severity: 'error', rule, message, line });
  if (!text.endsWith('\n')) error(1, 'premium-line', 'the last line has no "\\n" after it');
  const lines = text.replace(/\n$/, '').split('\n');
  const rates = lines[0]!.includes(' : ');
  lines.forEach((line, index) => {
    const at = index + 1;
    if (rates) {
      const match = rateLine.exec(line);
      if (!match) return error(at, 'premium-line', `expected "TITLE : IN = OUT", got ${quoteValue(line)}`);
      const [give, get] = [Number(match[2]), Number(match[5])];
      if (give > 0 !== get > 0)
        error(at, 'premium-rate', `a rate side is zero: ${line} (a line without a rate is "TITLE : 0 = 0")`);
    } else if (!reserveLine.test(line)) {
      error(at, 'premium-line', `expected "TITLE = AMOUNT", got ${quoteValue(line)}`);
    }
  });
  return findings.slice(0, 100);
}
