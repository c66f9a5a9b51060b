/**
 * Issue 13's abuse test: one key at every cap plus 50 open streams, on what `hyphae serve` runs,
 * while another tenant goes about its work. Every cap holds — each request past it is refused
 * with the quota named, nothing beyond it is kept — and the other tenant gets no error. No time is
 * asserted; `npm run bench abuse` prints the other tenant's latency under abuse ÷ unloaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ABUSE_LIMITS, fillCaps, placeVictimBeacon, startAbuseLoad, startAbuseServer, victimRound, type AbuseServer, type Outcome } from '../support/abuse-scenario.js';
import { parsePrometheusText } from '../support/prometheus-text.js';

const ROUNDS = 12;
/** Rounds after which the abuse must have met its caps (the victim's own rate limit allows ~120 a minute). */
const MAX_ROUNDS = 80;

describe('one key at every cap, 50 streams open, another tenant at work', { timeout: 300_000 }, () => {
  let server: AbuseServer;

  beforeAll(async () => {
    server = await startAbuseServer();
  }, 120_000);
  afterAll(async () => server?.close());

  it('holds every cap and the other tenant sees no error', async () => {
    expect((await placeVictimBeacon(server)).status).toBe(201);
    const filled = await fillCaps(server);
    expect(filled.accepted).toEqual({
      beacons: ABUSE_LIMITS.beaconsPerAgent,
      sessions: ABUSE_LIMITS.openSessionsPerAgent,
      streams: ABUSE_LIMITS.streamsPerKey,
      accompliceStores: ABUSE_LIMITS.inboxDiffs * 2,
    });
    expect(filled.beaconOverCap).toMatchObject({ status: 409, quota: 'beacons_per_agent' });
    expect(filled.sessionOverCap).toMatchObject({ status: 409, quota: 'open_sessions_per_agent' });
    expect(filled.streamOverCap).toMatchObject({ status: 429, retryAfter: '10' });

    const load = startAbuseLoad(server);
    const victim: Outcome[] = [];
    let rounds = 0;
    try {
      // The victim works on while the abuse runs into the tenant's cell cap and the key's rate limit.
      while (rounds < ROUNDS || (!load.atCaps() && rounds < MAX_ROUNDS)) victim.push(...(await victimRound(server, rounds++)));
    } finally {
      await load.stop();
    }
    const abuse = load.outcomes;
    expect(load.atCaps()).toBe(true);

    // The other tenant: every request answered 2xx, and its watcher heard its stores.
    expect(victim.filter((o) => o.status >= 300).map((o) => `${o.label} ${o.status}`)).toEqual([]);
    expect(victim).toHaveLength(rounds * 5);
    const watcher = await server.hyphae.facade.authenticate(server.keys.victimWatcher);
    expect((await server.hyphae.facade.peekInbox(watcher, { limit: 200 })).diffs.length).toBeGreaterThan(0);

    // The abuser: refused past each cap, with the quota named; nothing else went wrong.
    const statuses = new Set(abuse.map((o) => `${o.label} ${o.status} ${o.quota ?? ''}`.trim()));
    const unexpected = [...statuses].filter(
      (s) =>
        ![
          'store 201',
          'store 409 cells_per_tenant',
          'store 429',
          'beacon 409 beacons_per_agent',
          'beacon 429',
          'list-beacons 200',
          'list-beacons 429',
        ].includes(s),
    );
    expect(unexpected).toEqual([]);
    expect(statuses).toContain('beacon 409 beacons_per_agent');
    expect(statuses).toContain('store 409 cells_per_tenant');

    const facade = server.hyphae.facade;
    const abuser = await facade.authenticate(server.keys.abuser);
    const beacons = await facade.listBeacons(abuser, { limit: 200 });
    expect(beacons.items).toHaveLength(ABUSE_LIMITS.beaconsPerAgent);
    expect(beacons.next_cursor).toBeNull();
    const inbox = await facade.peekInbox(abuser, { limit: 200 });
    expect(inbox.diffs.length).toBeLessThanOrEqual(ABUSE_LIMITS.inboxDiffs);
    // The streams stayed within their cap: still open, or dropped with their reason.
    expect(facade.openLiveStreams).toBeLessThanOrEqual(ABUSE_LIMITS.streamsPerKey);
    const families = parsePrometheusText(await server.hyphae.metrics.render());
    expect(families.get('hyphae_inbox_trimmed_total')?.samples[0]?.value).toBeGreaterThan(0);
    const cells = await server.hyphae.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM cells WHERE tenant_id = 'abuser'`);
    expect(cells.rows[0]?.n).toBe(ABUSE_LIMITS.cellsPerTenant);
    expect(server.errors).toEqual([]);
  });
});
