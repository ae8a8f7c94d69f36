// Premium Exchanger's "rate from file" and "reserve from file" parsers, as premiumbox 2.7 runs them
// (test/fixtures/premium/README.md names the repository, paths and commit): the reading the tests hold ratefile's
// Premium files to. Line for line the PHP, with its quirks: every "\n"-separated line counts, only the text between
// the first and second ':' is the rate, `is_sum` reads numbers through a double.

/** premium/includes/functions.php `is_sum($sum, $cs = 12)` in its 'standart' mode. */
export function isSum(raw: string | undefined, cs = 12): string {
  let sum = (raw ?? '').replace(/,/g, '.').replace(/[^0-9\-.E]/g, '');
  // PHP's `if ($sum)`: '' and '0' are false.
  if (sum === '' || sum === '0') return '0';
  if (sum.includes('E')) sum = Number(sum).toFixed(20).replace(/0+$/, '');
  const decimals = sum.split('.')[1]?.trim() ?? '';
  const places = Math.max(0, Math.min(cs, decimals.length));
  // sprintf("%0.{cs}F", $sum): the string converted to a double, printed with cs decimals.
  let out = Number.parseFloat(sum).toFixed(places);
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return out;
}

/** One line as `get_filecourse()` keeps it, keyed by its line number (from 1). */
export interface PremiumRateLine {
  line: number;
  title: string;
  give: string;
  get: string;
}

/** moduls/files_course/index.php `get_filecourse()`: the lines of the rates file that have a ':'. */
export function parseRateFile(text: string): Map<number, PremiumRateLine> {
  const lines = new Map<number, PremiumRateLine>();
  text.split('\n').forEach((line, index) => {
    const parts = line.split(':');
    if (parts[1] === undefined) return;
    const course = parts[1].trim().split('=');
    lines.set(index + 1, { line: index + 1, title: parts[0]!.trim(), give: isSum(course[0]), get: isSum(course[1]) });
  });
  return lines;
}

/**
 * `fcourse_request_cron()`: for each direction mapped to a line (`filecourse`), the line's rate replaces the stored
 * one only when both sides are above zero; otherwise the stored rate stays (`pn_fcourse_courses`).
 */
export function applyRateFile(
  stored: ReadonlyMap<string, { give: string; get: string }>,
  mapping: ReadonlyMap<string, number>,
  text: string,
): Map<string, { give: string; get: string }> {
  const inFile = parseRateFile(text);
  const courses = new Map(stored);
  for (const [direction, key] of mapping) {
    const line = inFile.get(key);
    if (line !== undefined && Number(line.give) > 0 && Number(line.get) > 0)
      courses.set(direction, { give: line.give, get: line.get });
  }
  return courses;
}

/** moduls/files_reserv/index.php `get_reserv_fres()`: `dfilereserve_<line>` → the sum, for lines with '=' and a title. */
export function parseReserveFile(text: string): Map<number, { title: string; sum: string }> {
  const reserves = new Map<number, { title: string; sum: string }>();
  text.split('\n').forEach((line, index) => {
    const parts = line.split('=');
    if (parts[1] === undefined) return;
    const title = parts[0]!.trim();
    // `if ($title)`: PHP takes '' and '0' for false.
    if (title === '' || title === '0') return;
    // fres_get_formula_code: is_sum(is_sum($pars_line[1]), 20).
    reserves.set(index + 1, { title: parts[0]!, sum: isSum(isSum(parts[1]), 20) });
  });
  return reserves;
}
