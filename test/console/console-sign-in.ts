/**
 * Signing in to the console with an API key, as the console's browser tests all do: the sign-in
 * form, then the navigation a signed-in console shows.
 */
import type { BrowserContext, Page } from 'playwright-core';
import { collectPageErrors, launchChromium, type HeadlessChromium } from '../support/chromium.js';

/** Opens the console of the server at `serverUrl` in `page` and signs in with `key`. */
export async function signIn(page: Page, serverUrl: string, key: string): Promise<void> {
  await page.goto(`${serverUrl}/console/`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Console' }).waitFor();
}

/** A new page of `context` whose script and console errors go into `errors`, signed in with `key`. */
export async function signedInPage(context: BrowserContext, serverUrl: string, key: string, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  collectPageErrors(page, errors);
  await signIn(page, serverUrl, key);
  return page;
}

/** Chromium at `chromiumPath` with a context that may reach only the server at `serverUrl`, and a page of it signed in with `key`. */
export async function openSignedIn(chromiumPath: string, serverUrl: string, key: string, errors: string[]): Promise<{ readonly chromium: HeadlessChromium; readonly page: Page }> {
  const chromium = await launchChromium(chromiumPath);
  const context = await chromium.newContext(new URL(serverUrl).origin);
  return { chromium, page: await signedInPage(context, serverUrl, key, errors) };
}
