// What the operator is told about competing directions: health degrades when the field is not trusted (the normal
// margin), alerts start for that and for a direction pinned at its floor, and `ratefile status` lists each place.
import { describe, expect, it } from 'vitest';
import { currentProblems } from '../../../../src/service/alerts/problems.js';
import { assessHealth } from '../../../../src/pure/status/health.js';
import { formatStatus } from '../../../../src/pure/status/status.js';
import { goodStatus } from '../../../support/status.js';
import type { CompetingStatus, Status } from '../../../../src/pure/status/report.js';

const at = '2026-11-21T12:00:00.000Z';
const now = new Date('2026-11-21T12:00:10Z');

const status = (competing: CompetingStatus[]): Status =>
  goodStatus(at, ['BTC>SBERRUB', 'SBERRUB>BTC', 'BTC>CASHRUB'], {
    sources: [{ name: 'bc', type: 'bestchange', ok: true, quotes: 0, rows: 6 }],
    competing,
  });

const holding: CompetingStatus = {
  direction: 'BTC>SBERRUB',
  target: '1-3',
  place: 3,
  competitors: 12,
  basis: 'place',
  feedAgeSeconds: 4,
};
const floor: CompetingStatus = {
  direction: 'SBERRUB>BTC',
  target: '1',
  place: 4,
  competitors: 9,
  basis: 'floor',
  reason: 'the field is cheaper than the floor',
  feedAgeSeconds: 4,
};
const fallback: CompetingStatus = {
  direction: 'BTC>CASHRUB',
  target: '2',
  place: 5,
  competitors: 7,
  basis: 'fallback',
  reason: 'feed bc is 200 s old (limit 60 s)',
  feedAgeSeconds: 200,
};

describe('competing directions in health, alerts and status', () => {
  it('holding a place or pinned at the floor is ok; the normal margin degrades, with the reason', () => {
    expect(assessHealth(status([holding, floor]), now)).toEqual({ level: 'ok', reasons: [] });
    expect(assessHealth(status([holding, fallback]), now)).toEqual({
      level: 'degraded',
      reasons: [
        '1 competing direction priced at the normal margin, the field not trusted: BTC → CASHRUB (feed bc is 200 s old (limit 60 s))',
      ],
    });
  });

  it('alerts for the normal margin and for the floor, each by direction', () => {
    const problems = currentProblems(status([holding, floor, fallback]), now);
    expect(problems.filter((p) => !p.key.startsWith('health:'))).toEqual([
      {
        key: 'floor:SBERRUB>BTC',
        text: 'SBERRUB → BTC pinned at its floor, place 4 (target 1): the field is cheaper than the floor',
      },
      { key: 'compete:BTC>CASHRUB', text: 'BTC → CASHRUB at its normal margin: feed bc is 200 s old (limit 60 s)' },
    ]);
  });

  it('ratefile status lists each place', () => {
    const text = formatStatus(status([holding, floor, fallback]), now);
    expect(text).toContain(
      [
        'competing on BestChange:',
        '  BTC → SBERRUB: place 3 of 13 (target 1-3, place)',
        '  SBERRUB → BTC: place 4 of 10 (target 1, floor): the field is cheaper than the floor',
        '  BTC → CASHRUB: NORMAL MARGIN (target 2, fallback): feed bc is 200 s old (limit 60 s)',
      ].join('\n'),
    );
  });
});
