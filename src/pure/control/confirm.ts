// Two-person confirmation: a command of a kind `control.telegram.confirm.commands` names waits, under an id of its
// own, until a second operator confirms that id within `within`. The one who asked cannot confirm it; a confirmation
// names one waiting command, so two waiting commands never confirm each other; the same command asked again while
// it waits is the same waiting command, not a second one nor its confirmation. Pure: the service keeps the list.
import type { ConfirmKind } from '../../model/control.js';

export interface Waiting {
  id: string;
  kind: ConfirmKind;
  /** The command as shown to both (`/maintenance on`). */
  shown: string;
  /** The `ratefile` arguments it runs once confirmed. */
  cli: readonly string[];
  by: number;
  byName: string;
  at: number;
  until: number;
}

export type Asked = { made: Waiting; waiting: Waiting[] } | { already: Waiting };

/** A new waiting command, unless the same command (same arguments) already waits. */
export function ask(
  waiting: readonly Waiting[],
  wanted: Omit<Waiting, 'at' | 'until'>,
  at: number,
  withinMs: number,
): Asked {
  const same = waiting.find((w) => w.cli.join('\u0000') === wanted.cli.join('\u0000') && w.until > at);
  if (same) return { already: same };
  const made = { ...wanted, at, until: at + withinMs };
  return { made, waiting: [...waiting.filter((w) => w.until > at), made] };
}

export type Confirmed =
  | { run: Waiting; waiting: Waiting[] }
  | { refused: string; waiting: Waiting[]; expired?: Waiting };

/** `by` confirms waiting command `id` at `at`: it runs, or the reason it does not. */
export function confirm(waiting: readonly Waiting[], id: string, by: number, at: number): Confirmed {
  const found = waiting.find((w) => w.id === id);
  const rest = waiting.filter((w) => w.id !== id);
  if (!found) return { refused: `no command waits under ${id} (done, expired or never asked)`, waiting: [...waiting] };
  if (found.until <= at)
    return {
      refused: `${found.shown} (${id}) expired: it was not confirmed in time; ask again`,
      waiting: rest,
      expired: found,
    };
  if (found.by === by)
    return {
      refused: `${found.shown} (${id}) was asked by you: another operator must confirm it`,
      waiting: [...waiting],
    };
  return { run: found, waiting: rest };
}

/** The commands whose time ran out at `at`, taken off the list. */
export function expire(waiting: readonly Waiting[], at: number): { expired: Waiting[]; waiting: Waiting[] } {
  return { expired: waiting.filter((w) => w.until <= at), waiting: waiting.filter((w) => w.until > at) };
}
