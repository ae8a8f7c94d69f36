// Two-person confirmation as data: a waiting command runs only when someone other than its asker confirms its id
// in time; two waiting commands never confirm each other; the same command asked again is the one waiting.
import { describe, expect, it } from 'vitest';
import { ask, confirm, expire, type Waiting } from '../../../../src/pure/control/confirm.js';

const wanted = (id: string, cli: string[], by = 1) => ({
  id,
  kind: 'maintenance' as const,
  shown: cli.join(' '),
  cli,
  by,
  byName: `p${by}`,
});

function waitingWith(...asks: [string, string[], number][]): Waiting[] {
  let list: Waiting[] = [];
  for (const [id, cli, by] of asks) {
    const asked = ask(list, wanted(id, cli, by), 0, 600_000);
    if ('made' in asked) list = asked.waiting;
  }
  return list;
}

describe('two-person confirmation', () => {
  it('runs on a second person, never on the asker', () => {
    const list = waitingWith(['A', ['maintenance', 'on'], 1]);
    expect(confirm(list, 'A', 1, 10)).toEqual({
      refused: 'maintenance on (A) was asked by you: another operator must confirm it',
      waiting: list,
    });
    const done = confirm(list, 'A', 2, 10);
    expect(done).toEqual({ run: list[0], waiting: [] });
    expect(confirm([], 'A', 2, 11)).toMatchObject({
      refused: 'no command waits under A (done, expired or never asked)',
    });
  });

  it('expires after `within`: not run, taken off the list', () => {
    const list = waitingWith(['A', ['maintenance', 'on'], 1]);
    expect(confirm(list, 'A', 2, 600_000)).toEqual({
      refused: 'maintenance on (A) expired: it was not confirmed in time; ask again',
      waiting: [],
      expired: list[0],
    });
    expect(expire(list, 599_999)).toEqual({ expired: [], waiting: list });
    expect(expire(list, 600_000)).toEqual({ expired: list, waiting: [] });
  });

  it('keeps two waiting commands apart, and the same command asked again is the one waiting', () => {
    const list = waitingWith(['A', ['maintenance', 'on'], 1], ['B', ['accept', '--', 'BTC', 'SBERRUB'], 2]);
    expect(list.map((w) => w.id)).toEqual(['A', 'B']);
    const b = confirm(list, 'B', 1, 5);
    expect('run' in b && b.run.id).toBe('B');
    expect(b.waiting.map((w) => w.id)).toEqual(['A']);
    expect(ask(list, wanted('C', ['maintenance', 'on'], 2), 5, 600_000)).toEqual({ already: list[0] });
    // Once it expired, asking again makes a new one.
    expect(ask(list, wanted('C', ['maintenance', 'on'], 2), 600_000, 600_000)).toMatchObject({ made: { id: 'C' } });
  });
});
