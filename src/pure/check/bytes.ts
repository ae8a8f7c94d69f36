// The checker's verdict on an export file's bytes, however they were read (src/io/check/target.ts reads a file or a
// URL): a Premium Exchanger file by its own rules, any other by the standard's and, with `--monitor`, that monitor's
// reading; and the Content-Type an answer came with against the format of its body. Pure.
import { checkExport } from './export.js';
import { looksLikeEref } from './eref.js';
import { looksLikeJson } from './json.js';
import type { CheckOptions, CheckResult, Finding } from './findings.js';
import { decodeExport } from './decode.js';
import { predictMonitor } from './monitor.js';
import { checkPremiumExport, looksLikePremium } from './premium.js';
import type { MonitorProfile } from '../../model/monitor-profile.js';

export interface BytesOptions extends CheckOptions {
  /** Also predict what this monitor's parser does with the file (`check --monitor`). */
  monitor?: MonitorProfile;
}

/** The Content-Type against the format of the body: application/xml for the XML formats, application/json for JSON. */
export function contentTypeFindings(type: string | null, bytes: Uint8Array): Finding[] {
  const head = Buffer.from(bytes.subarray(0, 65_536)).toString('utf8');
  // Premium's parser reads the body whatever its type; text/plain is what a .txt file is served as.
  if (looksLikePremium(head)) return [];
  const [expected, format] = looksLikeJson(head)
    ? ['application/json', 'JSON']
    : ['application/xml', looksLikeEref(head) ? 'EREF 1.1' : 'XML'];
  const mime = type?.split(';')[0]?.trim().toLowerCase();
  const finding = (severity: 'error' | 'warning', message: string): Finding[] => [{ severity, rule: 'http', message }];
  if (!type) return finding('warning', `no Content-Type header; send ${expected}`);
  if (mime === expected) return [];
  // Monitors take either XML type (Premium sends text/xml); any other type (an HTML error page, text) they refuse.
  if (expected === 'application/xml' && mime === 'text/xml')
    return finding(
      'warning',
      `Content-Type is text/xml; ${format === 'EREF 1.1' ? 'EREF 1.1 requires' : 'the standard asks for'} application/xml`,
    );
  return finding(
    'error',
    `Content-Type is ${type}; monitors expect ${expected} for ${format === 'JSON' ? 'a JSON' : 'an XML'} file`,
  );
}

/**
 * A Premium Exchanger file (told by its first line, or by a file's `.txt` name) by its own check (premium.ts): no
 * monitor reads it, Premium's engine does. Any other file against the standard.
 */
export function checkBytes(bytes: Uint8Array, target: string, options: BytesOptions, txt: boolean): CheckResult {
  if (txt || looksLikePremium(Buffer.from(bytes.subarray(0, 65_536)).toString('utf8')))
    return checkPremiumExport(bytes, target);
  return withMonitor(checkExport(bytes, target, options), bytes, options.monitor);
}

/** The standard's check, plus the monitor's reading when one is asked for: its findings after the standard's. */
function withMonitor(result: CheckResult, bytes: Uint8Array, monitor: MonitorProfile | undefined): CheckResult {
  if (monitor === undefined) return result;
  const { text } = decodeExport(bytes);
  const { reading, findings } = predictMonitor(text ?? '', monitor);
  return { ...result, monitor: reading, findings: [...result.findings, ...findings] };
}
