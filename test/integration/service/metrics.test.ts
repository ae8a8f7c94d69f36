// /metrics under `start` (in-process): the Prometheus text of builds, directions, sources, exports, requests and health.
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectsPerTest } from '../../support/project.js';
import { servicesPerTest } from '../../support/service.js';

const project = projectsPerTest();
const start = servicesPerTest();

/** `name{labels} value` lines of a scrape, keyed by everything before the value. */
async function scrape(base: string): Promise<{ type: string | null; values: Map<string, number> }> {
  const response = await fetch(new URL('metrics', base));
  expect(response.status).toBe(200);
  const values = new Map<string, number>();
  for (const line of (await response.text()).split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    values.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return { type: response.headers.get('content-type'), values };
}

describe('/metrics', () => {
  it('counts builds and failed builds, directions, sources, exports, requests by route and status, and the health level', async () => {
    const made = await project();
    let now = new Date();
    const service = await start(made, { now: () => now });
    expect((await fetch(new URL('parserfile.xml', service.base))).status).toBe(200);
    expect((await fetch(new URL('nothing.txt', service.base))).status).toBe(404);

    const first = await scrape(service.base);
    expect(first.type).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(Object.fromEntries([...first.values].filter(([key]) => !/_bucket|_sum|_count|timestamp/.test(key)))).toEqual(
      {
        ratefile_builds_total: 1,
        ratefile_builds_failed_total: 0,
        ratefile_directions_published: 4,
        'ratefile_source_failing{source="backoffice"}': 0,
        'ratefile_source_quote_age_seconds{source="backoffice"}': expect.any(Number),
        // The sample's one quotes file sets every priced direction's market, and nothing checks it.
        'ratefile_sole_source_directions{reference="checked"}': 0,
        'ratefile_sole_source_directions{reference="none"}': 4,
        // How old the quotes behind the published directions were at the build; no streamed move built yet.
        ...Object.fromEntries(
          ['50', '90', '99', '100'].map((q) => [
            `ratefile_direction_quote_age_seconds{percentile="${q}"}`,
            expect.any(Number),
          ]),
        ),
        ratefile_move_builds_total: 0,
        'ratefile_export_items{file="affiliatefile.xml"}': 3,
        'ratefile_export_items{file="parserfile.xml"}': 5,
        'ratefile_export_items{file="reffile.xml"}': 4,
        'ratefile_export_bytes{file="affiliatefile.xml"}': expect.any(Number),
        'ratefile_export_bytes{file="parserfile.xml"}': expect.any(Number),
        'ratefile_export_bytes{file="reffile.xml"}': expect.any(Number),
        'ratefile_http_requests_total{route="/parserfile.xml",status="200"}': 1,
        'ratefile_http_requests_total{route="other",status="404"}': 1,
        // The export's fetch, by no configured monitor (the 404 of a path that is no export is nobody's fetch).
        'ratefile_export_fetches_total{file="parserfile.xml",monitor="other",class="2xx"}': 1,
        'ratefile_health{level="ok"}': 1,
        'ratefile_health{level="degraded"}': 0,
        'ratefile_health{level="failing"}': 0,
      },
    );
    for (const phase of ['fetch', 'price', 'render', 'publish', 'build'])
      expect(first.values.get(`ratefile_build_duration_seconds_count{phase="${phase}"}`)).toBe(1);
    expect(first.values.get('ratefile_export_last_change_timestamp_seconds{file="parserfile.xml"}')).toBeGreaterThan(
      Date.now() / 1000 - 60,
    );
    expect(first.values.get('ratefile_source_last_success_timestamp_seconds{source="backoffice"}')).toBeGreaterThan(0);

    // The quotes file gone for three minutes: the source fails, its last quotes are too old to stand in.
    await rm(join(made.dir, 'quotes.json'));
    now = new Date(now.getTime() + 180_000);
    await service.rebuild();
    const second = await scrape(service.base);
    expect(second.values.get('ratefile_builds_total')).toBe(2);
    expect(second.values.get('ratefile_directions_published')).toBe(0);
    expect(second.values.get('ratefile_directions_withheld{reason="quote"}')).toBe(4);
    expect(second.values.get('ratefile_source_failing{source="backoffice"}')).toBe(1);
    expect(second.values.get('ratefile_health{level="failing"}')).toBe(1);
    expect(second.values.get('ratefile_http_requests_total{route="/metrics",status="200"}')).toBe(1);

    // A build that cannot publish (an export's path is a folder) is a failed build.
    await rm(join(made.dir, 'public', 'parserfile.xml'));
    await mkdir(join(made.dir, 'public', 'parserfile.xml'));
    await service.rebuild();
    const third = await scrape(service.base);
    expect(third.values.get('ratefile_builds_total')).toBe(3);
    expect(third.values.get('ratefile_builds_failed_total')).toBe(1);
  });
});
