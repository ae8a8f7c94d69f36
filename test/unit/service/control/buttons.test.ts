// The buttons an alert to a control chat carries: for a held jump "Accept 1 : 97949 for BTC → SBERRUB" (the rate
// from the status file's held-back entry, `jump.rate`, in the published form), then Pause and Show; for another
// fault Pause and Show; names on Pause and Show only when several directions share the message. And only when the
// alert channel's bot and chat are the control bot's.
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../../../src/io/config/load.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';
import { buttonKey, readButton } from '../../../../src/pure/control/buttons.js';
import type { Status } from '../../../../src/pure/status/report.js';
import { alertButtons, alertKeyboard } from '../../../../src/service/control/buttons.js';

const key = buttonKey('7311234567:AAH-test');
const at = new Date('2026-11-21T12:00:30Z');
const statusWith = (heldBack: unknown[]) => ({ heldBack }) as unknown as Status;
const jump = (direction: string, rate: string, hard = false) => ({
  direction,
  kind: 'jump',
  reason: 'rate moved',
  jump: { last: '1', rate, sources: ['binance'], hard, command: `ratefile accept ${direction.replace('>', ' ')}` },
});

describe('alertKeyboard', () => {
  it('a held jump: Accept with its rate, then Pause and Show, each signed with its command', () => {
    const rows = alertKeyboard(
      { events: [{ kind: 'start', key: 'jump:BTC>SBERRUB', text: 'jump held' }] },
      statusWith([jump('BTC>SBERRUB', '97949')]),
      at,
      key,
    );
    expect(rows.map((row) => row.map((button) => button.text))).toEqual([
      ['Accept 1 : 97949 for BTC → SBERRUB'],
      ['Pause', 'Show'],
    ]);
    expect(rows.flat().map((button) => readButton(button.callback_data, key)?.command)).toEqual([
      { name: 'accept', args: ['BTC', 'SBERRUB'] },
      { name: 'pause', args: ['BTC', 'SBERRUB'] },
      { name: 'explain', args: ['BTC', 'SBERRUB'] },
    ]);
  });

  it('a rate below 1 is shown the other way round; no rate known: no rate said', () => {
    const rows = alertKeyboard(
      {
        events: [
          { kind: 'reminder', key: 'jump:SBERRUB>BTC', text: '' },
          { kind: 'start', key: 'jump:BTC>USDTTRC20', text: '' },
          { kind: 'start', key: 'withheld:USDTTRC20>CASHRUB', text: '' },
          { kind: 'end', key: 'jump:SBERRUB>USDTTRC20', text: '' },
          { kind: 'start', key: 'source:binance', text: '' },
        ],
      },
      statusWith([jump('SBERRUB>BTC', '0.0000002')]),
      at,
      key,
    );
    expect(rows.map((row) => row.map((button) => button.text))).toEqual([
      ['Accept 5000000 : 1 for SBERRUB → BTC'],
      ['Pause SBERRUB → BTC', 'Show SBERRUB → BTC'],
      ['Accept BTC → USDTTRC20'],
      ['Pause BTC → USDTTRC20', 'Show BTC → USDTTRC20'],
      ['Pause USDTTRC20 → CASHRUB', 'Show USDTTRC20 → CASHRUB'],
    ]);
  });

  it('at most four directions get buttons; an alert of other problems none', () => {
    const events = ['A', 'B', 'C', 'D', 'E'].map((code) => ({
      kind: 'start' as const,
      key: `withheld:${code}X>RUB`,
      text: '',
    }));
    expect(alertKeyboard({ events }, undefined, at, key)).toHaveLength(4);
    expect(alertKeyboard({ events: [{ kind: 'start', key: 'build', text: '' }] }, undefined, at, key)).toEqual([]);
  });
});

describe('alertButtons', () => {
  const project = projectsPerTest();
  const config = async (control: string) =>
    loadConfig(
      (await project({ 'ratefile.config.yaml': `${sampleConfig}alerts: { telegram: {} }\n${control}\n` })).configPath,
    );
  const control =
    'control: { telegram: { chats: [-100], people: [{ id: 1, role: operator }], confirm: { commands: [] } } }';
  const message = {
    id: 'm',
    at: '',
    level: 'failing',
    text: '',
    events: [{ kind: 'start' as const, key: 'withheld:BTC>SBERRUB', text: '' }],
  };

  it('only when the alerts go through the control bot to a chat where commands are taken', async () => {
    const made = await config(control);
    const env = { TELEGRAM_BOT_TOKEN: 'tok-123456', TELEGRAM_CHAT_ID: '-100' };
    expect(
      alertButtons(
        made,
        env,
        () => undefined,
        () => at,
      )?.(message),
    ).toMatchObject({ inline_keyboard: [[{ text: 'Pause' }, { text: 'Show' }]] });
    expect(
      alertButtons(
        made,
        { ...env, TELEGRAM_CHAT_ID: '-200' },
        () => undefined,
        () => at,
      ),
    ).toBeUndefined();
    expect(
      alertButtons(
        made,
        { TELEGRAM_CHAT_ID: '-100' },
        () => undefined,
        () => at,
      ),
    ).toBeUndefined();
    // The person's own private chat, when private chats are taken.
    expect(
      alertButtons(
        made,
        { ...env, TELEGRAM_CHAT_ID: '1' },
        () => undefined,
        () => at,
      ),
    ).toBeDefined();
    const other = await config(control.replace('{ chats', '{ tokenEnv: CONTROL_BOT, chats'));
    expect(
      alertButtons(
        other,
        { ...env, CONTROL_BOT: 'another-987654' },
        () => undefined,
        () => at,
      ),
    ).toBeUndefined();
    expect(
      alertButtons(
        await config(''),
        env,
        () => undefined,
        () => at,
      ),
    ).toBeUndefined();
  });
});
