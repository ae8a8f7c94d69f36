// How the control bot fits a reply into one Telegram message: whole when it fits, else cut at a line and saying
// where the rest is; an empty output said as such.
import { describe, expect, it } from 'vitest';
import { cut, who } from '../../../../src/service/control/context.js';

describe('cut', () => {
  it('keeps a reply that fits, and cuts a long one at a line, under 4096 characters', () => {
    expect(cut('ok\nlast build: …\n\n', 'the rest: ratefile status')).toBe('ok\nlast build: …');
    expect(cut('', 'x')).toBe('(nothing printed)');
    const long = Array.from({ length: 500 }, (_, i) => `line ${i} of the status`).join('\n');
    const shown = cut(long, 'the rest: ratefile status');
    expect(shown.length).toBeLessThanOrEqual(4000);
    expect(shown).toMatch(/\nline \d+ of the status\n… the rest: ratefile status$/);
    expect(shown.startsWith('line 0 of the status\nline 1 of the status')).toBe(true);
  });

  it('names a person by their name and id, or the id alone', () => {
    expect(who({ id: 7, name: 'anna' })).toBe('anna (7)');
    expect(who({ id: 7 })).toBe('user 7');
  });
});
