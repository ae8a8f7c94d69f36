// The watch from outside in `ratefile status`: one line per watched export, from what the service saved
// (`.ratefile/outside.json`; the service is another process).
import { ago, age } from '../../base/words.js';
import { copyAgeSeconds, type OutsideCheck } from './judge.js';

/** The section of `ratefile status`; empty without a watch. */
export function formatOutside(
  watched: Readonly<Record<string, string>>,
  checks: Readonly<Record<string, OutsideCheck>>,
  now: Date,
): string {
  const files = Object.keys(watched);
  if (files.length === 0) return '';
  const lines = files.map((file) => {
    const check = checks[file];
    if (!check || check.url !== watched[file]) return `  ${file}: not fetched yet (${watched[file]})`;
    const copyAge = copyAgeSeconds(check, now);
    const copy = copyAge === undefined ? '' : `; the copy is ${age(copyAge)} old`;
    return `  ${file}: ${check.state.toUpperCase()} since ${ago(check.since, now)}: ${check.detail}${copy} (checked ${ago(check.at, now)}, ${check.url})`;
  });
  return `${['public copies (the watch from outside):', ...lines].join('\n')}\n`;
}
