/**
 * Debian's Chromium for the console's browser tests, driven by playwright-core with its
 * executablePath (never a browser download). HYPHAE_CHROMIUM names another binary.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type BrowserContext } from 'playwright-core';

/** The flags that work here, as root, offline: no sandbox, no GPU, nothing fetched in the background. */
export const CHROMIUM_FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The Chromium binary, or undefined when this machine has none. */
export function findChromium(): string | undefined {
  const named = process.env.HYPHAE_CHROMIUM;
  if (named !== undefined && named !== '') return executable(named) ? named : undefined;
  const onPath = (process.env.PATH ?? '').split(delimiter).flatMap((dir) => ['chromium', 'chromium-browser'].map((name) => join(dir, name)));
  return [...onPath, '/usr/bin/chromium'].find(executable);
}

export interface HeadlessChromium {
  readonly browser: Browser;
  /** A fresh context (its own storage) that fails any request leaving the server under test. */
  newContext(origin: string): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Launched with a fresh profile of its own (playwright makes one per launch and removes it on close). */
export async function launchChromium(executablePath: string): Promise<HeadlessChromium> {
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  return {
    browser,
    async newContext(origin) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
      // No third-party requests: anything not addressed to the server under test is refused and recorded.
      await context.route(
        (url) => url.origin !== origin,
        (route) => route.abort('blockedbyclient'),
      );
      return context;
    },
    async close() {
      await browser.close();
    },
  };
}
