// A source's problem as the dashboard says it: once, and with what to do. A source's error names the source (the
// row already does), the file, then Node's own message, which names the file again (`ENOENT: no such file or
// directory, open '/srv/x/quotes.json'`); a missing file says what should write it. Pure: text in, text out.

/** What Node's error codes mean for a file ratefile reads, in words and with the fix. */
const errnoText: Record<string, string> = {
  ENOENT: 'is missing',
  EACCES: "cannot be read by ratefile's user (permission denied): check its owner and mode",
  EPERM: "cannot be read by ratefile's user (operation not permitted): check its owner and mode",
  EISDIR: 'is a folder, not a file: point `path:` at the file in it',
  ENOTDIR: 'is not there: a part of its path is a file, not a folder',
  ELOOP: 'is a symbolic link ratefile does not follow: point `path:` at the file itself',
  EMFILE: 'could not be opened: too many open files (raise the limit, `ulimit -n`)',
};

/** What writes a source's file, by source type: the fix a missing one needs. */
const writtenBy: Record<string, string> = {
  file: 'your back office (or a cron job) writes it, atomically: a temporary name, then a rename',
  exportfile: 'the exchanger whose export it is writes it (or the job that copies it here)',
};

// `backoffice: cannot read quotes file /srv/x/quotes.json: ENOENT: no such file or directory, open '/srv/x/quotes.json'`
const fileError =
  /^(?:(?<name>[^:]+): )?cannot read (?<what>[\w ]+?) file (?<path>.+?): (?<code>E[A-Z]+): [^,]*(?:, \w+ '[^']*')?$/;

/**
 * One source's error, said once: a missing file as "quotes.json is missing: the `file` source `backoffice` reads
 * it; …"; another errno in words; the source's name at the start left out (the row names it). Anything else as it is.
 */
export function problemText(source: { name: string; type: string }, error: string): string {
  const match = fileError.exec(error);
  const own = `${source.name}: `;
  if (!match?.groups) return error.startsWith(own) ? error.slice(own.length) : error;
  const { what = '', path = '', code = '' } = match.groups;
  const meaning = errnoText[code];
  if (!meaning) return `cannot read ${what} file ${path}: ${code}`;
  const type = source.type.replace(/^reserves\//, '');
  const role = `the \`${type}\` ${what === 'reserves' ? 'reserve source' : 'source'} \`${source.name}\` reads it`;
  if (code !== 'ENOENT') return `${path} ${meaning} (${role})`;
  const writer = writtenBy[type] ?? 'whatever feeds this source writes it';
  return `${path} ${meaning}: ${role}; create it (${writer}) or correct its \`path:\``;
}
