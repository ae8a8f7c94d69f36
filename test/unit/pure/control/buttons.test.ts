// The signed data of the bot's buttons: within Telegram's 64 bytes for the longest codes, read back to the same
// command, and refused when made with another key.
import { describe, expect, it } from 'vitest';
import { buttonData, buttonKey, readButton } from '../../../../src/pure/control/buttons.js';

const key = buttonKey('7311234567:AAH-test');
const at = new Date('2026-11-21T12:00:30Z');

describe('button data', () => {
  it('fits in 64 bytes with two 16-character codes, and reads back', () => {
    const command = { name: 'accept', args: ['ABCDEFGHIJKLMNOP', 'QRSTUVWXYZ012345'] };
    const data = buttonData(command, at, key);
    expect(Buffer.byteLength(data)).toBeLessThanOrEqual(64);
    expect(readButton(data, key)).toEqual({ command, at });
    expect(readButton(buttonData({ name: 'confirm', args: ['W1'] }, at, key), key)?.command).toEqual({
      name: 'confirm',
      args: ['W1'],
    });
  });

  it('is refused with another key (another bot token) and when longer than the API allows', () => {
    const data = buttonData({ name: 'pause', args: ['BTC', 'SBERRUB'] }, at, key);
    expect(readButton(data, buttonKey('another token 1234'))).toBeUndefined();
    expect(readButton(`${'x'.repeat(60)}${data}`, key)).toBeUndefined();
    expect(() => buttonData({ name: 'status', args: [] }, at, key)).toThrow('no button runs /status');
  });
});
