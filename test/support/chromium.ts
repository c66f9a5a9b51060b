/**
 * Debian's Chromium for the console's browser tests, driven by playwright-core with its
 * executablePath (never a browser download). HYPHAE_CHROMIUM names another binary.
 */
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

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
  /** A fresh context (its own storage) that may reach `origin` (the server under test) and `others` (an identity provider on loopback) only. */
  newContext(origin: string, ...others: string[]): Promise<BrowserContext>;
  close(): Promise<void>;
}

/** Launched with a fresh profile of its own (playwright makes one per launch and removes it on close). */
export async function launchChromium(executablePath: string): Promise<HeadlessChromium> {
  const browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_FLAGS });
  return {
    browser,
    async newContext(origin, ...others) {
      const context = await browser.newContext({ viewport: { width: 1366, height: 860 } });
      const allowed = new Set([origin, ...others]);
      // No third-party requests: anything not addressed to the servers under test is refused and recorded.
      await context.route(
        (url) => !allowed.has(url.origin),
        (route) => route.abort('blockedbyclient'),
      );
      return context;
    },
    async close() {
      await browser.close();
    },
  };
}

/** Collects a page's script errors and console errors (a 401/403/404 answer is expected, not an error). */
export function collectPageErrors(page: Page, into: string[]): void {
  page.on('console', (message) => {
    if (message.type() === 'error' && !/status of 40[134]/.test(message.text())) into.push(message.text());
  });
  page.on('pageerror', (error) => into.push(error.message));
}
