// The control bot's command table: how a message's text becomes a command (and when it is another bot's), what
// each command runs as `ratefile` arguments (so nothing typed can become an option of the CLI), and /help by role.
import { describe, expect, it } from 'vitest';
import { commandNamed, helpText, type Plan, typedCommand } from '../../../../src/pure/control/commands.js';

const plan = (text: string): Plan => {
  const typed = typedCommand(text, 'ratefile_bot');
  if (!typed) throw new Error(`not a command: ${text}`);
  const command = commandNamed(typed.name);
  if (!command) throw new Error(`no command ${typed.name}`);
  return command.plan(typed.args);
};

describe('typedCommand', () => {
  it.each<[string, ReturnType<typeof typedCommand>]>([
    ['/status', { name: 'status', args: [] }],
    ['  /Pause   btc  sberrub  bank holiday ', { name: 'pause', args: ['btc', 'sberrub', 'bank', 'holiday'] }],
    ['/status@Ratefile_Bot', { name: 'status', args: [] }],
    ['/status@other_bot', undefined],
    ['status', undefined],
    ['hello /status', undefined],
    ['/', undefined],
  ])('%j', (text, expected) => {
    expect(typedCommand(text, 'ratefile_bot')).toEqual(expected);
  });
});

describe('what each command runs', () => {
  it.each<[string, Plan]>([
    ['/status', { kind: 'cli', cli: ['status'], shown: '/status' }],
    [
      '/explain btc sberrub',
      {
        kind: 'cli',
        cli: ['explain', '--', 'BTC', 'SBERRUB'],
        direction: 'BTC>SBERRUB',
        shown: '/explain BTC SBERRUB',
      },
    ],
    [
      '/pause BTC SBERRUB bank holiday for 2h',
      {
        kind: 'cli',
        cli: ['pause', '--reason=bank holiday', '--until=2h', '--', 'BTC', 'SBERRUB'],
        direction: 'BTC>SBERRUB',
        shown: '/pause BTC SBERRUB bank holiday for 2h',
      },
    ],
    [
      '/pause BTC SBERRUB until 2026-11-22T09:00:00+03:00',
      {
        kind: 'cli',
        cli: ['pause', '--until=2026-11-22T09:00:00+03:00', '--', 'BTC', 'SBERRUB'],
        direction: 'BTC>SBERRUB',
        shown: '/pause BTC SBERRUB until 2026-11-22T09:00:00+03:00',
      },
    ],
    // "for" not followed by a duration is part of the reason.
    [
      '/pause BTC SBERRUB waiting for bank',
      {
        kind: 'cli',
        cli: ['pause', '--reason=waiting for bank', '--', 'BTC', 'SBERRUB'],
        direction: 'BTC>SBERRUB',
        shown: '/pause BTC SBERRUB waiting for bank',
      },
    ],
    // Words that look like options stay words: the reason is one `--reason=…` argument, the codes come after `--`.
    [
      '/pause BTC SBERRUB --config /etc/passwd --until 1m',
      {
        kind: 'cli',
        cli: ['pause', '--reason=--config /etc/passwd --until 1m', '--', 'BTC', 'SBERRUB'],
        direction: 'BTC>SBERRUB',
        shown: '/pause BTC SBERRUB --config /etc/passwd --until 1m',
      },
    ],
    [
      '/resume BTC SBERRUB',
      { kind: 'cli', cli: ['resume', '--', 'BTC', 'SBERRUB'], direction: 'BTC>SBERRUB', shown: '/resume BTC SBERRUB' },
    ],
    [
      '/accept BTC SBERRUB',
      { kind: 'cli', cli: ['accept', '--', 'BTC', 'SBERRUB'], direction: 'BTC>SBERRUB', shown: '/accept BTC SBERRUB' },
    ],
    ['/maintenance ON', { kind: 'cli', cli: ['maintenance', 'on'], shown: '/maintenance on' }],
    ['/maintenance', { kind: 'cli', cli: ['maintenance'], shown: '/maintenance' }],
    ['/confirm w1a', { kind: 'confirm', id: 'W1A' }],
    ['/help', { kind: 'help' }],
  ])('%s', (text, expected) => {
    expect(plan(text)).toEqual(expected);
  });

  it.each([
    ['/status now', 'expected /status alone'],
    ['/explain BTC', 'expected /explain FROM TO, like /explain BTC SBERRUB'],
    ['/explain BTC SBERRUB MSK', 'expected /explain FROM TO, like /explain BTC SBERRUB'],
    ['/resume BTC --config=x', 'expected /resume FROM TO, like /resume BTC SBERRUB'],
    ['/pause BTC', 'expected /pause FROM TO [reason] [for 2h], like /pause BTC SBERRUB bank holiday for 2h'],
    ['/pause -c SBERRUB', 'expected /pause FROM TO [reason] [for 2h], like /pause BTC SBERRUB bank holiday for 2h'],
    ['/maintenance maybe', 'expected /maintenance on, /maintenance off, or /maintenance alone to ask'],
    ['/confirm', 'expected /confirm ID, with the id the waiting command shows'],
    ['/confirm a b', 'expected /confirm ID, with the id the waiting command shows'],
  ])('%s is a usage problem', (text, problem) => {
    expect(plan(text)).toEqual({ kind: 'usage', problem });
  });

  it('says which confirmation a command is: accept past the hard bound or not, maintenance only when it switches', () => {
    const accept = commandNamed('accept')!;
    const acceptPlan = accept.plan(['BTC', 'SBERRUB']) as Plan & { kind: 'cli' };
    expect(accept.confirmAs?.(acceptPlan, { hardJump: true })).toBe('accept-hard');
    expect(accept.confirmAs?.(acceptPlan, { hardJump: false })).toBe('accept');
    const maintenance = commandNamed('maintenance')!;
    expect(maintenance.confirmAs?.(maintenance.plan(['on']) as Plan & { kind: 'cli' }, { hardJump: false })).toBe(
      'maintenance',
    );
    expect(
      maintenance.confirmAs?.(maintenance.plan([]) as Plan & { kind: 'cli' }, { hardJump: false }),
    ).toBeUndefined();
    expect(commandNamed('status')!.confirmAs).toBeUndefined();
  });
});

describe('/at', () => {
  it('runs `ratefile at TIME FROM TO`, the time checked before anything runs', () => {
    const at = commandNamed('at')!;
    expect(at.role).toBe('viewer');
    expect(at.plan(['2026-11-21T12:00:00z', 'btc', 'sberrub'])).toEqual({
      kind: 'cli',
      cli: ['at', '--', '2026-11-21T12:00:00Z', 'BTC', 'SBERRUB'],
      direction: 'BTC>SBERRUB',
      shown: '/at 2026-11-21T12:00:00Z BTC SBERRUB',
    });
    expect(at.plan(['now', 'BTC', 'SBERRUB'])).toMatchObject({ cli: ['at', '--', 'now', 'BTC', 'SBERRUB'] });
    for (const args of [['--export', 'BTC', 'SBERRUB'], ['yesterday', 'BTC', 'SBERRUB'], ['now', 'BTC'], []])
      expect(at.plan(args), args.join(' ')).toMatchObject({ kind: 'usage' });
  });
});

describe('/help', () => {
  it('lists what the role may give', () => {
    const viewer = helpText('viewer');
    expect(viewer.split('\n').map((line) => line.split(':')[0])).toEqual([
      '/status',
      '/explain FROM TO',
      '/at TIME FROM TO',
      '/help',
      'You are a viewer',
    ]);
    expect(helpText('operator')).toMatch(/^\/confirm ID: confirm another operator's command/m);
    expect(helpText('operator')).not.toContain('You are a viewer');
  });
});
