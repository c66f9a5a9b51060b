/**
 * The console's Erasures page in a real headless Chromium (docs/forgetting.md, docs/console.md): a
 * tenant admin finds it in the navigation and reads the audit log — when, who (agent and key id),
 * the selector, the copies removed by kind — page by page; the erased text appears nowhere. A
 * writer is offered no such page, and a project-scoped admin is told what it needs.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findChromium, launchChromium, type HeadlessChromium } from '../support/chromium.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';
import { skipTier } from '../support/test-tiers.js';
import { createTestDb } from '../support/test-db.js';
import { signedInPage } from './console-sign-in.js';

const chromiumPath = findChromium();
const CANARY = 'the vault code is <b>4711</b> quartzlantern';

describe.skipIf(chromiumPath === undefined && skipTier('browser', 'chromium'))('the console’s Erasures page in headless Chromium', () => {
  let server: ConsoleServer;
  let chromium: HeadlessChromium;
  let context: BrowserContext;
  const pageErrors: string[] = [];

  const signedIn = (key: string): Promise<Page> => signedInPage(context, server.url, key, pageErrors);

  beforeAll(async () => {
    server = await startConsoleServer({ openDb: createTestDb });
    // 21 erasures of one cell each (one page of 20, and one more), then bob's memories.
    for (let i = 0; i < 21; i += 1) {
      const { node_id } = await server.rest<{ node_id: string }>('alice', 'POST', '/v1/cells', { content: `${CANARY} number ${i}`, cell_type: 'Fact', salience: 0.5 });
      await server.rest('alice', 'DELETE', `/v1/cells/${node_id}`);
    }
    await server.rest('bob', 'POST', '/v1/cells', { content: `${CANARY} told by bob`, cell_type: 'Fact', salience: 0.5 });
    await server.rest('admin', 'DELETE', '/v1/admin/agents/bob/memories');
    chromium = await launchChromium(chromiumPath ?? '');
    context = await chromium.newContext(new URL(server.url).origin);
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
  });

  it('lists the receipts newest first — when, who, what, copies removed — page by page, and never the erased text', async () => {
    const page = await signedIn(server.keys.admin.key);
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Erasures' }).click();
    const table = page.getByRole('table', { name: 'Erasure receipts' });
    await expect.poll(() => table.getByRole('row').count()).toBe(21);
    const newest = table.getByRole('row').nth(1);
    expect(await newest.textContent()).toContain('agent bob');
    expect(await newest.textContent()).toContain(`console-admin key ${server.keys.admin.key_id}`);
    expect(await newest.textContent()).toMatch(/cells 1/);
    const aliceRow = table.getByRole('row').nth(2);
    expect(await aliceRow.textContent()).toMatch(new RegExp(`alice key ${server.keys.alice.key_id}`));
    expect(await aliceRow.textContent()).toMatch(/cell [0-9a-f-]{36}.*cells 1, lexical_terms 1/);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => table.getByRole('row').count()).toBe(23);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    const shown = (await page.locator('main').textContent()) ?? '';
    expect(shown).not.toContain('quartzlantern');
    expect(shown).not.toContain('4711');
    expect(pageErrors).toEqual([]);
  });

  it('is offered to no writer, and tells a project-scoped admin what it needs', async () => {
    const writer = await signedIn(server.keys.alice.key);
    expect(await writer.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Erasures' }).count()).toBe(0);
    await writer.close();
    const scoped = await server.hyphae.keyAdmin.createKey({ tenant: 'default', agent: 'p-admin', roles: ['admin'], projects: ['p'], default_project: 'p', trust: 0.5 });
    const page = await signedIn(scoped.key);
    expect(await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Erasures' }).count()).toBe(0);
    await page.goto(`${server.url}/console/#/erasures`);
    await expect.poll(() => page.getByRole('alert').textContent()).toContain('an admin key scoped to every project');
    expect(await page.getByRole('table', { name: 'Erasure receipts' }).count()).toBe(0);
    expect(pageErrors).toEqual([]);
  });
});
