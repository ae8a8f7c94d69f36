import type { Status } from '../../src/pure/status/report.js';
// A status as a good build at `at` writes it, for tests of what is read from it (health, alerts, status text).

export function goodStatus(at: string, published: string[], overrides: Partial<Status> = {}): Status {
  return {
    version: 1,
    lastBuild: { at, durationMs: 3, ok: true },
    lastSuccessAt: at,
    schedulePeriodMs: 30_000,
    maintenance: false,
    sources: [{ name: 'backoffice', type: 'file', ok: true, quotes: 2 }],
    exports: [],
    published,
    heldBack: [],
    ...overrides,
  };
}
