// The check every build runs before publishing: a rendered file that fails the standard is not written, its last good version stays.
import { RatefileError } from '../../base/errors.js';
import { checkExport } from './export.js';
import type { Finding } from './findings.js';
import { checkPremiumFile } from './premium.js';
import { formatFinding } from './report.js';
import type { OutputFile } from '../../model/config.js';
import { plural } from '../../base/words.js';

export interface RefusedFile {
  file: string;
  /** The errors that failed it. */
  errors: Finding[];
}

/** Split rendered files into those that pass the export check and those refused, with their errors; `codes`: a live code list. */
export function gateFiles(
  files: readonly OutputFile[],
  codes?: ReadonlySet<string>,
): { passing: OutputFile[]; refused: RefusedFile[] } {
  const passing: OutputFile[] = [];
  const refused: RefusedFile[] = [];
  for (const file of files) {
    // Strict: ratefile's own files keep to the written standard, not just to what monitors tolerate.
    const errors = file.file.endsWith('.txt')
      ? checkPremiumFile(file.bytes)
      : checkExport(file.bytes, file.file, { strict: true, ...(codes ? { codes } : {}) }).findings.filter(
          (finding) => finding.severity === 'error',
        );
    if (errors.length === 0) passing.push(file);
    else refused.push({ file: file.file, errors });
  }
  return { passing, refused };
}

/** The build's failure once the passing files are out: names each refused file and lists its errors. */
export function refusedError(refused: readonly RefusedFile[]): RatefileError {
  const names = refused.map((r) => `${r.file} (${plural(r.errors.length, 'error')})`).join(', ');
  const details = refused.flatMap((r) => [
    ...r.errors.slice(0, 10).map((e) => `${r.file}: ${formatFinding(e)}`),
    ...(r.errors.length > 10 ? [`${r.file}: … and ${r.errors.length - 10} more`] : []),
  ]);
  return new RatefileError('E_RENDER', `not published, failed the export check (last good file kept): ${names}`, {
    details,
  });
}
