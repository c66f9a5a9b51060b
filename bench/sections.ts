/** The sections `npm run bench` knows, in the order it runs them, and the names that stand for several. */

export interface SectionEntry {
  readonly name: string;
  readonly module: string;
  readonly exportName: string;
  readonly onlyWhenNamed?: boolean;
}

export const SECTIONS: readonly SectionEntry[] = [
  { name: 'embed', module: './embed-bench.js', exportName: 'runEmbedBench' },
  { name: 'store', module: './store-bench.js', exportName: 'runStoreBench' },
  { name: 'pg', module: './pg-bench.js', exportName: 'runPgBench' },
  { name: 'rest', module: './rest-bench.js', exportName: 'runRestBench' },
  { name: 'mcp', module: './mcp-bench.js', exportName: 'runMcpBench' },
  { name: 'grpc', module: './grpc-bench.js', exportName: 'runGrpcBench' },
  { name: 'oauth', module: './oauth-bench.js', exportName: 'runOAuthBench' },
  { name: 'mesh', module: './mesh-bench.js', exportName: 'runMeshBench' },
  { name: 'channel', module: './channel-bench.js', exportName: 'runChannelBench' },
  { name: 'worker', module: './worker-bench.js', exportName: 'runWorkerBench' },
  { name: 'peer', module: './peer-bench.js', exportName: 'runPeerBench' },
  { name: 'mem0', module: './mem0-bench.js', exportName: 'runMem0Bench' },
  { name: 'abuse', module: './abuse-bench.js', exportName: 'runAbuseBench' },
  { name: 'dedup', module: './dedup-bench.js', exportName: 'runDedupBench' },
  { name: 'port', module: './port-bench.js', exportName: 'runPortBench' },
  { name: 'console', module: './console-bench.js', exportName: 'runConsoleBench' },
  { name: 'recall', module: './recall-bench.js', exportName: 'runRecallBench' },
  { name: 'feedback', module: './feedback-bench.js', exportName: 'runFeedbackBench' },
  { name: 'relations', module: './relations-bench.js', exportName: 'runRelationsBench' },
  { name: 'sources', module: './sources-bench.js', exportName: 'runSourcesBench' },
  { name: 'sources-recall', module: './source-recall-bench.js', exportName: 'runSourceRecallBench' },
  { name: 'learning', module: './learning-bench.js', exportName: 'runLearningBench' },
  { name: 'erasure', module: './erasure-bench.js', exportName: 'runErasureBench' },
  { name: 'operator', module: '../operator/bench/operator-bench.js', exportName: 'runOperatorBench' },
  // Only when named (`npm run bench scale`): a million cells, 10k live streams, 1k agents take a while.
  { name: 'scale', module: './scale-bench.js', exportName: 'runScaleBench', onlyWhenNamed: true },
  // Only when named (`npm run bench cluster`): it starts a Kubernetes node, as root, for minutes.
  { name: 'cluster', module: './cluster-bench.js', exportName: 'runClusterBench', onlyWhenNamed: true },
];

/** Names that stand for several sections: the surfaces' request paths, and memory pushed to agents. */
export const SECTION_ALIASES: Readonly<Record<string, readonly string[]>> = {
  protocol: ['mcp', 'rest', 'grpc'],
  push: ['channel', 'mesh'],
};

/** The sections `names` stand for, aliases expanded, in run order; no names, every section not only-when-named. An unknown name throws. */
export function selectSections(names: readonly string[]): SectionEntry[] {
  if (names.length === 0) return SECTIONS.filter((s) => s.onlyWhenNamed !== true);
  const wanted = new Set(names.flatMap((name) => SECTION_ALIASES[name] ?? [name]));
  const unknown = [...wanted].filter((name) => !SECTIONS.some((s) => s.name === name));
  if (unknown.length > 0) throw new Error(`unknown bench section ${unknown.join(', ')}; known: ${[...SECTIONS.map((s) => s.name), ...Object.keys(SECTION_ALIASES)].join(', ')}`);
  return SECTIONS.filter((s) => wanted.has(s.name));
}
