// Decides whether a live object already carries everything we would apply, so steady state
// issues no PATCH. Two checks: the desired-hash annotation (our last apply was of this exact
// desired object) and a subset comparison (nobody has since changed a field we set).
import type { KubeObject } from '../kube/kube-object.js';
import { HASH_ANNOTATION, stableHash } from '../desired/common.js';

export function withDesiredHash(obj: KubeObject): KubeObject {
  const hash = stableHash(obj);
  return { ...obj, metadata: { ...obj.metadata, annotations: { ...obj.metadata.annotations, [HASH_ANNOTATION]: hash } } };
}

export function needsApply(desired: KubeObject, live: KubeObject | undefined): boolean {
  if (!live || live.metadata.deletionTimestamp) return true;
  if (live.metadata.annotations?.[HASH_ANNOTATION] !== desired.metadata.annotations?.[HASH_ANNOTATION]) return true;
  const { metadata: dm, ...dRest } = desired;
  const { metadata: lm, ...lRest } = live;
  const metaSubset = { labels: dm.labels, annotations: dm.annotations, ownerReferences: dm.ownerReferences };
  return !contains(lm, metaSubset) || !contains(lRest, dRest);
}

/** True when every field set in `want` has an equal value in `have` (extra fields in `have` are fine). */
export function contains(have: unknown, want: unknown): boolean {
  if (want === undefined) return true;
  if (Array.isArray(want)) {
    if (!Array.isArray(have) || have.length !== want.length) return false;
    return want.every((w, i) => contains(have[i], w));
  }
  if (want !== null && typeof want === 'object') {
    if (have === null || typeof have !== 'object' || Array.isArray(have)) return false;
    const h = have as Record<string, unknown>;
    return Object.entries(want as Record<string, unknown>).every(([k, v]) => contains(h[k], v));
  }
  if (have === want) return true;
  // The API server canonicalises quantities ("1000m" → "1", 1 → "1"): compare their values.
  const a = parseQuantity(have);
  const b = parseQuantity(want);
  return a !== undefined && b !== undefined && a === b;
}

const SUFFIX: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};

export function parseQuantity(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value !== 'string') return undefined;
  const m = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)(n|u|m|k|M|G|T|P|E|Ki|Mi|Gi|Ti|Pi|Ei)?$/.exec(value);
  if (!m) return undefined;
  const scale = SUFFIX[m[2] ?? ''];
  return scale === undefined ? undefined : Number(m[1]) * scale;
}
