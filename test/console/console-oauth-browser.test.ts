/**
 * Signing in to the console through the identity provider, in a real headless Chromium against a
 * real authorization server on loopback (oidc-provider, the console registered as a public client):
 * the sign-in page offers the provider, the browser goes there and back with a code, the console
 * trades it for a token (PKCE) and then reads the API as the agent the token names. The page's CSP
 * admits the provider's token endpoint and nothing else; a server without the console client id
 * offers keys only.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectPageErrors, findChromium, launchChromium, type HeadlessChromium } from '../support/chromium.js';
import { startAuthorizationServer, type AuthorizationServer } from '../support/authorization-server.js';
import { freePort } from '../support/free-port.js';
import { skipTier } from '../support/test-tiers.js';
import { createTestDb } from '../support/test-db.js';
import { startConsoleServer, type ConsoleServer } from '../support/console-server.js';

const chromiumPath = findChromium();

/** Registers the console with the provider as an administrator would: a public client redirecting to `<public URL>/console/`. */
async function registerConsoleClient(as: AuthorizationServer, publicUrl: string): Promise<string> {
  const metadata = (await (await fetch(`${as.issuer}/.well-known/openid-configuration`)).json()) as { registration_endpoint: string };
  const response = await fetch(metadata.registration_endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      client_name: 'Hyphae console',
      redirect_uris: [`${publicUrl}/console/`],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code'],
      response_types: ['code'],
    }),
  });
  const client = (await response.json()) as { client_id?: string };
  if (response.status !== 201 || client.client_id === undefined) throw new Error(`registration failed: ${response.status} ${JSON.stringify(client)}`);
  return client.client_id;
}

describe.skipIf(chromiumPath === undefined && skipTier('browser', 'chromium'))('console sign-in through the identity provider', () => {
  let as: AuthorizationServer;
  let server: ConsoleServer;
  let chromium: HeadlessChromium;
  let context: BrowserContext;
  let page: Page;
  const blocked: string[] = [];
  const pageErrors: string[] = [];

  beforeAll(async () => {
    as = await startAuthorizationServer({ signInAs: { sub: 'dana', claims: { hyphae_tenant: 'default' } } });
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}`;
    const clientId = await registerConsoleClient(as, publicUrl);
    server = await startConsoleServer({
      openDb: createTestDb,
      port,
      env: { HYPHAE_OAUTH_ISSUER: as.issuer, HYPHAE_PUBLIC_URL: publicUrl, HYPHAE_OAUTH_ALLOWED_TENANTS: 'default', HYPHAE_CONSOLE_OAUTH_CLIENT_ID: clientId },
    });
    chromium = await launchChromium(chromiumPath ?? '');
    context = await chromium.newContext(publicUrl, as.issuer);
    // A request the next navigation cancels (net::ERR_ABORTED) was not refused; anything else was.
    context.on('requestfailed', (request) => {
      const reason = request.failure()?.errorText ?? '';
      if (reason !== 'net::ERR_ABORTED') blocked.push(`${request.url()} ${reason}`);
    });
    page = await context.newPage();
    collectPageErrors(page, pageErrors);
  });
  afterAll(async () => {
    await chromium?.close();
    await server?.close();
    await as?.close();
  });

  it('admits the provider’s token endpoint in the page’s CSP, and nothing else', async () => {
    const response = await page.goto(`${server.url}/console/`);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain(`connect-src 'self' ${as.issuer}`);
    expect(csp).toContain("script-src 'self'");
  });

  it('signs in at the provider and reads the API as the agent the token names', async () => {
    await server.rest('alice', 'POST', '/v1/cells', { content: 'The on-call rota changes on Mondays at 09:00', cell_type: 'Fact' });
    await page.goto(`${server.url}/console/`);
    await page.getByRole('button', { name: `Sign in with ${new URL(as.issuer).host}` }).click();
    await page.getByRole('navigation', { name: 'Console' }).waitFor();
    expect(await page.getByLabel('Signed in as').textContent()).toContain('dana · default');
    // The code and state left the address bar; the token is what the API calls carry.
    expect(new URL(page.url()).search).toBe('');
    await expect.poll(() => page.getByRole('list', { name: 'Cells' }).textContent()).toContain('on-call rota');
    const stored = await page.evaluate(() => JSON.parse((globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('hyphae.console.credential') ?? '{}') as { kind?: string });
    expect(stored.kind).toBe('bearer');
    expect(pageErrors).toEqual([]);
    expect(blocked).toEqual([]);
  });

  it('refuses a return it did not start (state mismatch), and signs no one in', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.goto(`${server.url}/console/?code=forged&state=forged`);
    await expect.poll(() => page.getByRole('status').first().textContent()).toContain('state mismatch');
    expect(await page.getByRole('navigation', { name: 'Console' }).count()).toBe(0);
  });
});
