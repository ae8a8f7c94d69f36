// Values quoted in messages and log lines are escaped JSON-style: a config key or value cannot forge a line of
// output ("ratefile: all good") nor send ESC, BEL or C1 sequences to the terminal, in text and JSON logs alike.
import { describe, expect, it } from 'vitest';
import { escapeControls, quoteValue } from '../../../../src/base/errors.js';
import { createLogger } from '../../../../src/base/log.js';
import { runRatefile } from '../../../support/run-cli.js';
import { projectsPerTest, sampleConfig } from '../../../support/project.js';

const project = projectsPerTest();

/** Any C0 control but the newline ending each line, DEL, or C1 control (CSI is \u009b). */
const rawControl = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/;

describe('config problems quote keys and values escaped', () => {
  it('an unknown key holding a newline cannot forge a line; ESC, BEL and CSI in a value reach the terminal escaped', async () => {
    const config = `${sampleConfig.replace('  margin: 1.5%', '  margin: "\\e[31mred\\a\\u009b2J"')}"x\\nratefile: all good, 0 problems": 1\n`;
    const { dir } = await project({ 'ratefile.config.yaml': config });
    const { code, stderr } = await runRatefile(['build'], dir);
    expect(code).toBe(2);
    expect(stderr).not.toMatch(rawControl);
    expect(stderr.split('\n').filter((line) => line.startsWith('ratefile:'))).toEqual([
      'ratefile: ratefile.config.yaml: 2 problems',
    ]);
    expect(stderr).toContain(
      '\n  defaults.margin: expected a percentage like "1.5%", got "\\u001b[31mred\\u0007\\u009b2J" (line 10)\n',
    );
    expect(stderr).toContain('\n  ["x\\nratefile: all good, 0 problems"]: unknown key (line 15)\n');
  });

  it('quoteValue: JSON escapes plus DEL and C1, and a long value cut with its length', () => {
    expect(quoteValue('a"b\\c\n\u001b\u007f\u009b')).toBe('"a\\"b\\\\c\\n\\u001b\\u007f\\u009b"');
    expect(quoteValue('1'.repeat(1_000_000))).toBe(`"${'1'.repeat(200)}…" (1000000 characters)`);
  });
});

describe('safety nets', () => {
  it('the CLI escapes control characters in any error it prints, such as a config path from the command line', async () => {
    const { dir } = await project();
    const { code, stderr } = await runRatefile(['build', '--config', 'a\u001b[2Jb\nratefile: ok.yaml'], dir);
    expect(code).toBe(2);
    expect(stderr).toBe(
      'ratefile: a\\u001b[2Jb\\u000aratefile: ok.yaml: file not found\n  create one here with `ratefile init`, or name yours with --config PATH (or RATEFILE_CONFIG)\n',
    );
  });

  it('ratefile check escapes what a checked file holds: a code cannot forge a line, nor send a C1 CSI to the terminal', async () => {
    // XML 1.0 allows a line break and C1 controls in text, and a finding quotes the code it is about.
    const { dir } = await project({
      'rogue.xml':
        '<?xml version="1.0" encoding="UTF-8"?>\n<rates><item><from>BTC\nrogue.xml: clean \u009b2J</from><to>SBERRUB</to><in>1</in><out>2</out><amount>3</amount></item></rates>\n',
    });
    const { stdout } = await runRatefile(['check', 'rogue.xml'], dir);
    expect(stdout).toContain('\\u009b2J');
    expect(stdout).not.toMatch(rawControl);
    expect(stdout.split('\n').filter((line) => line.startsWith('rogue.xml:'))).toEqual([
      expect.stringMatching(/^rogue\.xml: 1 item, /),
    ]);
  });

  it('the text log writes one line per event with controls escaped; the JSON log escapes C1 too and parses back', () => {
    const message = 'build failed: "x\nratefile: all good" \u001b[2J\u0007 \u009b2J';
    let text = '';
    const now = () => new Date('2026-11-21T12:00:00Z');
    createLogger({ write: (chunk: string) => (text += chunk) }, { now, format: () => 'text' }).error(message);
    expect(text).toBe(
      '2026-11-21T12:00:00.000Z error build failed: "x\\u000aratefile: all good" \\u001b[2J\\u0007 \\u009b2J\n',
    );
    let json = '';
    createLogger({ write: (chunk: string) => (json += chunk) }, { now, format: () => 'json' }).warn(message, {
      source: 'a\u009bb',
    });
    expect(json).not.toMatch(rawControl);
    expect(json.split('\n')).toHaveLength(2);
    expect(JSON.parse(json)).toEqual({
      time: '2026-11-21T12:00:00.000Z',
      level: 'warn',
      msg: message,
      source: 'a\u009bb',
    });
    expect(escapeControls('tab\there')).toBe('tab\\u0009here');
  });

  it('makes the bidirectional formatting characters visible too: U+202E cannot show a text reversed', () => {
    expect(escapeControls('a\u202eexe.txt \u2066b\u2069 \u200f\u061c')).toBe(
      'a\\u202eexe.txt \\u2066b\\u2069 \\u200f\\u061c',
    );
    // Ordinary right-to-left text stays as it is.
    expect(escapeControls('שלום مرحبا')).toBe('שלום مرحبا');
  });
});
