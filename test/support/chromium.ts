// Debian's Chromium for the browser suites (test/browser/), driven by playwright-core: headless, in a fresh profile,
// without the background connections this machine's closed network refuses. The suites fail, never skip, without it.
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';

export const chromiumPath = '/usr/bin/chromium';

/** Throws, saying what to install, when Debian's chromium is not there. */
export function assertChromium(): void {
  if (!existsSync(chromiumPath))
    throw new Error(`${chromiumPath} is missing: install the Debian package (apt-get install -y chromium)`);
}

export interface Chromium {
  context: BrowserContext;
  /** Closes the browser and removes its profile. */
  close(): Promise<void>;
}

export async function launchChromium(): Promise<Chromium> {
  const profile = await mkdtemp(join(tmpdir(), 'ratefile-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: chromiumPath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking'],
  });
  return {
    context,
    async close() {
      await context.close();
      await rm(profile, { recursive: true, force: true });
    },
  };
}
