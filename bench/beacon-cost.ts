/** What matching one store against N beacons costs (store, pg and scale sections): the matcher alone, without its index, and a store end to end. */
import { DEFAULT_ENERGY_TABLE } from '../src/core/energy.js';
import { HashEmbedder } from '../src/embed/hash-embedder.js';
import { BeaconMatcher } from '../src/mesh/beacon-matcher.js';
import { createMemoryFacade } from '../src/service/index.js';
import type { Db } from '../src/store/db.js';
import { toVectorParam, type VectorParam } from '../src/store/vector-param.js';
import { seededRandom, syntheticCorpus } from './corpus.js';
import { BULK_PROJECT, BULK_TENANT, bulkLoad } from './harness/bulk-load.js';
import { QUIET_HITS } from './harness/engine.js';
import { elapsedMs, ratio, round, timed } from './harness/measure.js';
import { percentile, type BenchRow } from './harness/section.js';

const QUERY_SEED = 7;

/** Beacon texts of random tokens: near no cell, so the measure is the index scan, not the diffs. */
function noiseTexts(n: number, seed: number): string[] {
  const random = seededRandom(seed);
  const token = (): string => Math.floor(random() * 36 ** 6).toString(36);
  return Array.from({ length: n }, () => Array.from({ length: 6 }, token).join(' '));
}

export interface BeaconCost {
  readonly beacons: number;
  readonly p50: number;
  readonly p99: number;
  readonly matches: number;
  readonly storeP50: number;
  readonly diffs: number;
  readonly exhaustiveP50: number;
}

/** Loads `count` beacons (five real interests among noise) into a migrated, empty database and measures matching one store against them. */
export async function beaconCost(db: Db, count: number): Promise<BeaconCost> {
  const embedder = new HashEmbedder();
  const matcher = new BeaconMatcher({ reachFactor: 0.15, energyTable: DEFAULT_ENERGY_TABLE });
  const cells = syntheticCorpus(200, QUERY_SEED + 1);
  const cellVectors = (await embedder.embed(cells)).map((v) => toVectorParam(v));
  // Five real interests (memories of the same kind as the cells) among the noise, so every size also finds some matches.
  const interests = syntheticCorpus(5, 99);
  const texts = [...interests, ...noiseTexts(count - interests.length, count)];
  await bulkLoad(db, 'beacons', texts, await embedder.embed(texts));
  const match = (i: number): Promise<unknown[]> =>
    db.transaction((tx) =>
      matcher.match(tx, { tenantId: BULK_TENANT, project: BULK_PROJECT, cellType: 'Decision', salience: 0.5, sceneId: null, sourceAgent: 'author', embedding: cellVectors[i] as VectorParam }, new Date()),
    );
  // The first pass warms the index pages; the second is measured.
  for (let i = 0; i < cells.length; i++) await match(i);
  const samples: number[] = [];
  let matches = 0;
  for (let i = 0; i < cells.length; i++) {
    const { value, ms } = await timed(() => match(i));
    samples.push(ms);
    matches += value.length;
  }
  // What matching would cost without the index: every beacon of the tenant compared.
  const exhaustive: number[] = [];
  for (const vector of cellVectors.slice(0, 20)) {
    exhaustive.push(await elapsedMs(() => db.query(`SELECT count(*) FROM beacons WHERE tenant_id = $1 AND 1 - ((embedding <=> $2::vector) + 0) >= threshold - 0.0675`, [BULK_TENANT, vector])));
  }
  // The same, end to end: a store through the facade (embed, insert, match, diffs, commit).
  const facade = createMemoryFacade({ db, embedder, config: QUIET_HITS });
  const key = await facade.keyAdmin.createKey({ tenant: BULK_TENANT, agent: 'author', projects: [BULK_PROJECT] });
  const author = await facade.authenticate(key.key);
  const storeMs: number[] = [];
  for (const content of cells.slice(0, 100)) storeMs.push(await elapsedMs(() => facade.store(author, { content, cell_type: 'Decision', salience: 0.5 })));
  const { rows: diffRows } = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM diffs`);
  await facade.close();
  return { beacons: count, p50: percentile(samples, 50), p99: percentile(samples, 99), matches: matches / cells.length, storeP50: percentile(storeMs.slice(20), 50), diffs: (diffRows[0]?.n ?? 0) / 100, exhaustiveP50: percentile(exhaustive, 50) };
}

/** Rows of beacon costs, each a ratio to the first (smallest) count, measured in the same run. */
export function beaconRows(costs: readonly BeaconCost[], label: string): BenchRow[] {
  const base = costs[0];
  const against = (c: BeaconCost, figure: (c: BeaconCost) => number): Partial<BenchRow> => ({
    ...(base === undefined || c === base ? {} : { baseline: round(figure(base)), ratio: ratio(figure(c), figure(base)) }),
    ...(c === costs[costs.length - 1] && c !== base ? { target: `≤ 3× the ${base?.beacons ?? ''}-beacon cost` } : {}),
  });
  return [
    ...costs.map((c) => ({
      metric: `${label}beacon matching per store, ${c.beacons} beacons (p50)`,
      value: round(c.p50),
      unit: 'ms',
      ...against(c, (x) => x.p50),
      note: `p99 ${round(c.p99)} ms; ${round(c.matches, 2)} matches per store; without the index (every beacon compared) p50 ${round(c.exhaustiveP50)} ms`,
    })),
    ...costs.map((c) => ({
      metric: `${label}store p50 through the facade, ${c.beacons} beacons`,
      value: round(c.storeP50),
      unit: 'ms',
      ...against(c, (x) => x.storeP50),
      note: `80 stores measured; ${round(c.diffs, 2)} diffs written per store`,
    })),
  ];
}
