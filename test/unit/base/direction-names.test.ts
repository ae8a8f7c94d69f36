// One wording across the surfaces people read: `ratefile status`, health reasons (the dashboard headline, /healthz)
// and alert texts name a direction "BTC → SBERRUB" and an age alike; the id BTC>SBERRUB stays only in keys.
import { describe, expect, it } from 'vitest';
import { currentProblems } from '../../../src/service/alerts/problems.js';
import { assessHealth } from '../../../src/pure/status/health.js';
import { formatStatus } from '../../../src/pure/status/status.js';
import { goodStatus } from '../../support/status.js';

const at = '2026-11-21T10:00:00.000Z';
const now = new Date('2026-11-21T12:05:00Z');
const status = goodStatus(at, ['ETH>SBERRUB', 'BTC>CASHRUB'], {
  schedulePeriodMs: 3_600_000,
  heldBack: [
    { direction: 'BTC>SBERRUB', kind: 'stale', reason: 'quote BTC/USDT from backoffice is 600 s old (limit 60 s)' },
    { direction: 'SBERRUB>BTC', kind: 'jump', reason: 'rate moved 12% from the last published 0.0000001' },
    { direction: 'USDTTRC20>CASHRUB', kind: 'paused', reason: 'paused: bank blocks cards' },
  ],
  leftOut: [
    { direction: 'ETH>SBERRUB', kind: 'limits', files: ['reffile.xml'], reason: 'its limits cross at the markup' },
  ],
  competing: [
    {
      direction: 'BTC>CASHRUB',
      target: '2',
      place: 5,
      competitors: 7,
      basis: 'fallback',
      reason: 'feed bc is 200 s old (limit 60 s)',
    },
  ],
});

describe('a direction and an age read the same on every surface', () => {
  const texts = {
    status: formatStatus(status, now),
    health: assessHealth(status, now).reasons.join('\n'),
    alerts: currentProblems(status, now)
      .map((p) => p.text)
      .join('\n'),
  };

  it.each(Object.keys(texts) as (keyof typeof texts)[])(
    '%s names directions "FROM → TO", never by their id',
    (surface) => {
      const text = texts[surface];
      expect(text).toContain('BTC → SBERRUB');
      expect(text).not.toMatch(/[A-Z0-9]>[A-Z]/);
      expect(text).not.toMatch(/[A-Z0-9]→[A-Z]/);
    },
  );

  it('the alerts keep the ids in their keys', () => {
    expect(currentProblems(status, now).map((p) => p.key)).toEqual(
      expect.arrayContaining(['withheld:BTC>SBERRUB', 'jump:SBERRUB>BTC', 'compete:BTC>CASHRUB']),
    );
  });

  it('status gives the age of the last build in the words of the dashboard', () => {
    expect(texts.status).toContain(`last build: ${at} (2 h 5 min ago), ok`);
  });
});
