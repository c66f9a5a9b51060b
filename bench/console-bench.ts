/**
 * The web console: its bundle's size (raw and gzip, as served), its first load in Debian's headless
 * Chromium on loopback — to DOMContentLoaded and to the first meaningful render (the sign-in form;
 * signed in, the newest cells) — against a navigation to /healthz on the same server in the same
 * run (a page with nothing to fetch or run), and how long a store takes to show in the live gossip
 * view, against the store's own round trip.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { Page } from 'playwright-core';
import { defaultBundleDir } from '../src/console/index.js';
import { startConsoleServer } from '../test/support/console-server.js';
import { findChromium, launchChromium } from '../test/support/chromium.js';
import { alternate } from './harness/alternate.js';
import { percentile, type BenchRow, type BenchSection } from './harness/section.js';

const LOADS = 15;
const STORES = 15;

function bundleBytes(dir: string): { raw: number; gzip: number; files: number } {
  const totals = { raw: 0, gzip: 0, files: 0 };
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) {
      for (const name of readdirSync(path)) walk(join(path, name));
      return;
    }
    const body = readFileSync(path);
    totals.raw += body.length;
    totals.gzip += gzipSync(body, { level: 9 }).length;
    totals.files += 1;
  };
  walk(dir);
  return totals;
}

/** Puts a key where the console keeps it, so a page opens signed in (what a reload does). */
function signedInScript(key: string): string {
  return `sessionStorage.setItem('hyphae.console.key', ${JSON.stringify(key)});`;
}

interface LoadTimes {
  readonly domContentLoaded: number[];
  readonly rendered: number[];
}

async function navigationTiming(page: Page): Promise<number> {
  // Evaluated in the page, where PerformanceNavigationTiming exists (this file is typed for Node).
  return page.evaluate<number>("(() => { const e = performance.getEntriesByType('navigation')[0]; return e ? e.domContentLoadedEventEnd - e.startTime : NaN; })()");
}

function ratioRow(metric: string, values: readonly number[], baseline: readonly number[], note: string): BenchRow {
  const value = percentile(values, 50);
  const base = percentile(baseline, 50);
  return { metric, value: Number(value.toFixed(1)), unit: 'ms (p50)', baseline: Number(base.toFixed(1)), ratio: Number((value / base).toFixed(2)), note };
}

export async function runConsoleBench(): Promise<BenchSection> {
  const chromiumPath = findChromium();
  if (chromiumPath === undefined) throw new Error('chromium not found (apt-get install chromium, or set HYPHAE_CHROMIUM)');
  const server = await startConsoleServer();
  const chromium = await launchChromium(chromiumPath);
  const origin = new URL(server.url).origin;
  try {
    for (let i = 0; i < 30; i += 1) {
      await server.rest(i % 2 === 0 ? 'alice' : 'bob', 'POST', '/v1/cells', { content: `Bench memory ${i}: the deploy checklist step ${i}`, cell_type: 'Fact' });
    }
    const baseline: LoadTimes = { domContentLoaded: [], rendered: [] };
    const signIn: LoadTimes = { domContentLoaded: [], rendered: [] };
    const signedIn: LoadTimes = { domContentLoaded: [], rendered: [] };
    // A fresh context per load: an empty cache, as on a first visit; the three pages in turns, the order rotating.
    const firstLoad = async (times: LoadTimes, path: string, ready?: (page: Page) => Promise<void>): Promise<void> => {
      const context = await chromium.newContext(origin);
      if (times === signedIn) await context.addInitScript({ content: signedInScript(server.keys.admin.key) });
      const page = await context.newPage();
      const started = Date.now();
      await page.goto(`${server.url}${path}`);
      if (ready !== undefined) await ready(page);
      times.rendered.push(Date.now() - started);
      times.domContentLoaded.push(await navigationTiming(page));
      await context.close();
    };
    await alternate(
      {
        baseline: () => firstLoad(baseline, '/healthz'),
        signIn: () => firstLoad(signIn, '/console/', (page) => page.getByLabel('API key').waitFor()),
        signedIn: () => firstLoad(signedIn, '/console/#/memories', (page) => page.getByRole('list', { name: 'Cells' }).waitFor()),
      },
      LOADS,
    );

    await server.rest('bob', 'POST', '/v1/beacons', { text: 'bench gossip about releases', threshold: 0.2 });
    const context = await chromium.newContext(origin);
    await context.addInitScript({ content: signedInScript(server.keys.admin.key) });
    const page = await context.newPage();
    await page.goto(`${server.url}/console/#/gossip`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const storeRoundTrips: number[] = [];
    const toLiveView: number[] = [];
    for (let i = 0; i < STORES; i += 1) {
      const content = `Bench gossip about releases number ${i}`;
      const started = Date.now();
      await server.rest('alice', 'POST', '/v1/cells', { content, cell_type: 'Fact', salience: 0.9 });
      storeRoundTrips.push(Date.now() - started);
      await page.getByRole('list', { name: 'Deliveries, newest first' }).getByText(`number ${i}`, { exact: false }).first().waitFor();
      toLiveView.push(Date.now() - started);
    }
    await context.close();

    const bundle = bundleBytes(defaultBundleDir());
    return {
      name: 'console',
      rows: [
        { metric: 'bundle, as built', value: bundle.raw, unit: 'bytes', note: `${bundle.files} files in dist/console` },
        { metric: 'bundle, gzip (as served)', value: bundle.gzip, unit: 'bytes', baseline: bundle.raw, ratio: Number((bundle.gzip / bundle.raw).toFixed(3)) },
        ratioRow('first load → DOMContentLoaded', signIn.domContentLoaded, baseline.domContentLoaded, 'baseline: GET /healthz in the same browser'),
        ratioRow('first load → sign-in form rendered', signIn.rendered, baseline.rendered, 'cold cache, fresh context each load'),
        ratioRow('signed in → newest cells rendered', signedIn.rendered, baseline.rendered, 'includes GET /v1/me and GET /v1/cells'),
        ratioRow('store → shown in the live gossip view', toLiveView, storeRoundTrips, 'baseline: the store round trip alone'),
      ],
    };
  } finally {
    await chromium.close();
    await server.close();
  }
}
