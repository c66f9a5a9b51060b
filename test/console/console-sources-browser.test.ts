/**
 * The console's source pages in a real headless Chromium: the list shows each source with its
 * status, a source's page its fields, its chunks (heading path, range, status, a link to the chunk
 * cell) page by page, and its text slice by slice — markup in a source stays text.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, type HeadlessChromium } from '../support/chromium.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { skipTier } from '../support/test-tiers.js';
import { createTestDb } from '../support/test-db.js';
import { openSignedIn } from './console-sign-in.js';

const chromiumPath = findChromium();

/** A runbook of `sections` sections, long enough to need two slices of the page and more than one page of chunks. */
function runbook(sections: number): string {
  const body = Array.from({ length: sections }, (_, i) => `## Step ${i}\n\n${'Drain the ledger queue <b>safely</b> and check its depth. '.repeat(30)}`);
  return `# Ledger runbook\n\n${body.join('\n\n')}`;
}

describe.skipIf(chromiumPath === undefined && skipTier('browser', 'chromium'))('the console’s source pages in headless Chromium', () => {
  let server: ConsoleServer;
  let chromium: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];
  const text = runbook(60);

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
    await server.rest('alice', 'POST', '/v1/sources', { text, format: 'markdown', title: 'Ledger runbook', source_id: 'ledger-runbook' });
    await server.rest('alice', 'POST', '/v1/sources', { turns: [{ user: 'Where do refunds go?', assistant: 'To the refunds queue.' }], source_id: 'refunds-chat' });
    ({ chromium, page } = await openSignedIn(chromiumPath ?? '', server.url, server.keys.carol.key, pageErrors));
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it('lists the sources with their kind, chunks and status, and filters by kind', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Sources' }).click();
    const table = page.getByRole('table', { name: 'Sources' });
    await expect.poll(() => table.textContent()).toContain('Ledger runbook');
    const row = table.getByRole('row', { name: /Ledger runbook/ });
    await expect.poll(() => row.textContent()).toMatch(/knowledge \(markdown\).*ready/);
    expect(await table.getByRole('row', { name: /refunds-chat/ }).textContent()).toContain('memory (conversation)');
    await page.getByLabel('Kind').selectOption('memory');
    await page.getByRole('button', { name: 'Show' }).click();
    await expect.poll(() => table.textContent()).not.toContain('Ledger runbook');
    expect(await table.textContent()).toContain('refunds-chat');
  });

  it('shows a source’s fields, its chunks page by page with heading paths, and its text slice by slice, as text', async () => {
    await page.goto(`${server.url}/console/#/sources/ledger-runbook`);
    await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('Ledger runbook');
    const chunks = page.getByRole('table', { name: 'Chunks' });
    await expect.poll(() => chunks.getByRole('row').count()).toBe(51);
    expect(await chunks.getByRole('row').nth(1).textContent()).toContain('Ledger runbook › Step 0');
    expect(await chunks.getByRole('row').nth(1).textContent()).toContain('ready');
    const total = (await server.rest<{ chunks_total: number }>('carol', 'GET', '/v1/sources/ledger-runbook/chunks')).chunks_total;
    expect(total).toBeGreaterThan(50);
    await page.getByRole('button', { name: 'More chunks' }).click();
    await expect.poll(() => chunks.getByRole('row').count()).toBe(Math.min(total, 100) + 1);

    // The text, slice by slice: concatenated, it is the source; the markup in it stays text.
    const pieces: string[] = [];
    for (;;) {
      const shown = (await page.getByLabel('Source text').textContent()) ?? '';
      pieces.push(shown);
      const next = page.getByRole('link', { name: 'Next slice' });
      if ((await next.count()) === 0) break;
      await next.click();
      await expect.poll(async () => (await page.getByLabel('Source text').textContent()) !== shown).toBe(true);
    }
    expect(pieces.join('')).toBe(text);
    expect(await page.locator('pre.content b').count()).toBe(0);

    // A chunk's number opens its cell.
    await page.goto(`${server.url}/console/#/sources/ledger-runbook`);
    await chunks.getByRole('link', { name: '0', exact: true }).click();
    await expect.poll(() => page.locator('pre.content').first().textContent()).toMatch(/^Ledger runbook › Step 0\n\n## Step 0/);
  });

  it('says a source that is not there is not found', async () => {
    await page.goto(`${server.url}/console/#/sources/no-such-source`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('NOT_FOUND');
    expect(pageErrors.filter((error) => !error.includes('404'))).toEqual([]);
  });
});
