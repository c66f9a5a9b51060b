/**
 * The console's Quality page in a real headless Chromium (docs/feedback.md): an admin sees the
 * curve and the table of recall on judged requests, and the worst-judged request with its query,
 * what it returned and what was true; the query stays text.
 */
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, type HeadlessChromium } from '../support/chromium.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { skipTier } from '../support/test-tiers.js';
import { createTestDb } from '../support/test-db.js';
import { openSignedIn } from './console-sign-in.js';

const chromiumPath = findChromium();

describe.skipIf(chromiumPath === undefined && skipTier('browser', 'chromium'))('the console’s Quality page in headless Chromium', () => {
  let server: ConsoleServer;
  let chromium: HeadlessChromium;
  let page: Page;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
    const kiln = await server.rest<{ node_id: string }>('alice', 'POST', '/v1/cells', { content: 'the kiln cools for six hours', cell_type: 'Fact', salience: 0.5 });
    const answer = await server.rest<{ request_id: string }>('alice', 'POST', '/v1/recall', { query: 'how long <b>does</b> the press run', k: 3, cell_types: ['Decision'] });
    await server.rest('alice', 'POST', '/v1/feedback', { request_id: answer.request_id, rating: 'negative', ground_truth_ids: [kiln.node_id] });
    ({ chromium, page } = await openSignedIn(chromiumPath ?? '', server.url, server.keys.admin.key, pageErrors));
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it('draws recall per day and lists the worst-judged request with its query, returned and true ids', async () => {
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Quality' }).click();
    const table = page.getByRole('table', { name: 'Quality per day' });
    await expect.poll(() => table.textContent()).toContain('agent');
    expect(await table.textContent()).toMatch(/agent1\s*0%\s*0%\s*0\.00\s*100%/);
    expect(await page.getByRole('img', { name: 'Quality of agent feedback per day' }).count()).toBe(1);
    const worst = page.getByRole('list', { name: 'Worst-judged requests' });
    expect(await worst.textContent()).toContain('how long <b>does</b> the press run — truth not surfaced');
    expect(await worst.locator('b').count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
