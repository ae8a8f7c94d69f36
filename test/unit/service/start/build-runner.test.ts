// One build at a time in `ratefile start` (src/service/start/schedule.ts buildRunner): a scheduled build is skipped while one runs,
// changes seen during a build become exactly one build after it.
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../../../src/base/log.js';
import { buildRunner } from '../../../../src/service/start/schedule.js';

/** A build per call that finishes only when the test says so. */
function builds() {
  const calls: { changed: readonly string[] | undefined; finish: () => void }[] = [];
  const run = (changed?: readonly string[]) =>
    new Promise<void>((resolve) => {
      calls.push({ changed, finish: resolve });
    });
  return { calls, run };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('buildRunner', () => {
  it('changes during a build are coalesced into exactly one build after it, naming every file', async () => {
    const { calls, run } = builds();
    let log = '';
    const runner = buildRunner(run, createLogger({ write: (text: string) => (log += text) }));
    runner.changed(['quotes.json']);
    for (let n = 0; n < 50; n++) runner.changed([n % 2 === 0 ? 'quotes.json' : 'reserves.json']);
    expect(calls.map((call) => call.changed)).toEqual([['quotes.json']]);
    calls[0]!.finish();
    await settle();
    expect(calls.map((call) => call.changed)).toEqual([['quotes.json'], ['quotes.json', 'reserves.json']]);
    calls[1]!.finish();
    await settle();
    expect(calls).toHaveLength(2);
    expect(log).toBe('');
  });

  it('a scheduled build while a change build runs is skipped quietly; behind a scheduled build, with a warning', async () => {
    const { calls, run } = builds();
    let log = '';
    const runner = buildRunner(run, createLogger({ write: (text: string) => (log += text) }));
    runner.changed(['quotes.json']);
    const skipped = runner.build();
    expect(calls).toHaveLength(1);
    expect(log).toBe('');
    calls[0]!.finish();
    await skipped;
    const scheduled = runner.build();
    expect(calls[1]!.changed).toBeUndefined();
    void runner.build();
    expect(log).toContain('warn build skipped: the previous build is still running');
    // A change during a scheduled build still gets its own build after it.
    runner.changed(['quotes.json']);
    calls[1]!.finish();
    await scheduled;
    await settle();
    expect(calls.map((call) => call.changed)).toEqual([['quotes.json'], undefined, ['quotes.json']]);
    calls[2]!.finish();
  });

  it('stop: waits for the running build and starts none for changes seen meanwhile', async () => {
    const { calls, run } = builds();
    const runner = buildRunner(run, createLogger({ write: () => undefined }));
    void runner.build();
    runner.changed(['quotes.json']);
    let stopped = false;
    const stopping = runner.stop().then(() => (stopped = true));
    await settle();
    expect(stopped).toBe(false);
    calls[0]!.finish();
    await stopping;
    await settle();
    expect(calls).toHaveLength(1);
  });
});
