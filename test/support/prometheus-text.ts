/**
 * A strict parser of the Prometheus text exposition format (0.0.4), for tests: it throws on any
 * line a Prometheus server would reject, so a scrape that parses here is a scrape that works.
 */
export type MetricType = 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface MetricFamily {
  readonly name: string;
  type: MetricType;
  help: string;
  readonly samples: Sample[];
}

const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const TYPES: ReadonlySet<string> = new Set(['counter', 'gauge', 'histogram', 'summary', 'untyped']);

/** As Prometheus (Go's ParseFloat): NaN and Inf/Infinity match case-insensitively. */
function parseValue(text: string, line: number): number {
  const lower = text.toLowerCase();
  if (lower === 'nan') return Number.NaN;
  if (/^\+?inf(inity)?$/.test(lower)) return Number.POSITIVE_INFINITY;
  if (/^-inf(inity)?$/.test(lower)) return Number.NEGATIVE_INFINITY;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`line ${line}: bad value ${JSON.stringify(text)}`);
  return Number(text);
}

function parseLabels(text: string, line: number): Record<string, string> {
  const labels: Record<string, string> = {};
  let i = 0;
  while (i < text.length) {
    const eq = text.indexOf('=', i);
    if (eq < 0) throw new Error(`line ${line}: label without '='`);
    const name = text.slice(i, eq).trim();
    if (!LABEL_NAME.test(name)) throw new Error(`line ${line}: bad label name ${JSON.stringify(name)}`);
    if (name in labels) throw new Error(`line ${line}: duplicate label ${name}`);
    if (text[eq + 1] !== '"') throw new Error(`line ${line}: label value must be quoted`);
    let j = eq + 2;
    let value = '';
    for (;;) {
      const ch = text[j];
      if (ch === undefined) throw new Error(`line ${line}: unterminated label value`);
      if (ch === '"') break;
      if (ch === '\\') {
        const next = text[j + 1];
        if (next === 'n') value += '\n';
        else if (next === '\\' || next === '"') value += next;
        else throw new Error(`line ${line}: bad escape in label value`);
        j += 2;
        continue;
      }
      value += ch;
      j += 1;
    }
    labels[name] = value;
    i = j + 1;
    if (text[i] === ',') i += 1;
    else if (i < text.length) throw new Error(`line ${line}: expected ',' between labels`);
  }
  return labels;
}

function familyOf(sampleName: string, families: Map<string, MetricFamily>): MetricFamily | undefined {
  const direct = families.get(sampleName);
  if (direct !== undefined) return direct;
  for (const suffix of ['_bucket', '_sum', '_count']) {
    if (!sampleName.endsWith(suffix)) continue;
    const family = families.get(sampleName.slice(0, -suffix.length));
    if (family === undefined) continue;
    if (family.type === 'histogram' || (family.type === 'summary' && suffix !== '_bucket')) return family;
  }
  return undefined;
}

export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily>();
  const sampled = new Set<string>();
  const lines = text.split('\n');
  if (lines.at(-1) !== '') throw new Error('exposition must end with a newline');
  lines.forEach((raw, index) => {
    const line = index + 1;
    if (raw.trim() === '') return;
    if (raw.startsWith('#')) {
      const match = /^# (HELP|TYPE) (\S+) ?(.*)$/.exec(raw);
      if (match === null) return; // A plain comment.
      const [, kind, name = '', rest = ''] = match;
      if (!METRIC_NAME.test(name)) throw new Error(`line ${line}: bad metric name ${name}`);
      const family = families.get(name) ?? { name, type: 'untyped', help: '', samples: [] };
      families.set(name, family);
      if (kind === 'TYPE') {
        if (!TYPES.has(rest)) throw new Error(`line ${line}: bad type ${rest}`);
        if (sampled.has(name)) throw new Error(`line ${line}: TYPE after samples of ${name}`);
        family.type = rest as MetricType;
      } else {
        family.help = rest;
      }
      return;
    }
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)(\s+-?\d+)?$/.exec(raw);
    if (match === null) throw new Error(`line ${line}: malformed sample ${JSON.stringify(raw)}`);
    const [, name = '', , labelText, valueText = ''] = match;
    const family = familyOf(name, families);
    if (family === undefined) throw new Error(`line ${line}: sample ${name} of no declared family`);
    sampled.add(family.name);
    const labels = labelText === undefined ? {} : parseLabels(labelText, line);
    if (name.endsWith('_bucket') && family.type === 'histogram' && labels.le === undefined) throw new Error(`line ${line}: bucket without le`);
    family.samples.push({ name, labels, value: parseValue(valueText, line) });
  });
  return families;
}
