// The series selectors of a PromQL expression (metric name and matched label names), read by a
// small tokenizer: enough for the expressions the chart ships, whose syntax promtool checks
// (test/monitoring/prometheus-rules.test.ts). Grafana's interval variables become a duration
// first; its other variables only ever stand inside label values, which PromQL reads as strings.

export interface SeriesSelector {
  readonly metric: string;
  readonly labels: readonly string[];
}

type TokenKind = 'ident' | 'string' | 'number' | 'punct';
interface Token {
  readonly kind: TokenKind;
  readonly text: string;
}

const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g;
const AGGREGATIONS = new Set(['sum', 'min', 'max', 'avg', 'group', 'stddev', 'stdvar', 'count', 'count_values', 'bottomk', 'topk', 'quantile', 'limitk', 'limit_ratio']);
/** Words that are never a series: binary operators, modifiers, number literals. */
const KEYWORDS = new Set(['and', 'or', 'unless', 'bool', 'offset', 'inf', 'nan', 'start', 'end']);
/** Modifiers followed by a parenthesised list of label names. */
const LABEL_LISTS = new Set(['by', 'without', 'on', 'ignoring', 'group_left', 'group_right']);

function tokenize(promql: string): Token[] {
  const tokens: Token[] = [];
  const pattern = /\s+|#[^\n]*|"(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*'|`[^`]*`|[a-zA-Z_:][a-zA-Z0-9_:]*|[0-9][0-9a-zA-Z_.]*|\.[0-9]+|=~|!~|!=|==|<=|>=|[-+*/%^@=<>(){}[\],:]/y;
  while (pattern.lastIndex < promql.length) {
    const at = pattern.lastIndex;
    const match = pattern.exec(promql);
    if (match === null) throw new Error(`unexpected character at ${at} in: ${promql}`);
    const text = match[0];
    if (/^\s|^#/.test(text)) continue;
    const kind: TokenKind = /^["'`]/.test(text) ? 'string' : /^[a-zA-Z_:]/.test(text) ? 'ident' : /^[0-9.]/.test(text) ? 'number' : 'punct';
    tokens.push({ kind, text });
  }
  return tokens;
}

/** Selectors in order of appearance; throws naming the expression on what it cannot read. */
export function seriesSelectors(expr: string): SeriesSelector[] {
  const promql = expr.replace(GRAFANA_INTERVALS, '5m');
  const tokens = tokenize(promql);
  const selectors: SeriesSelector[] = [];
  const fail = (why: string): never => {
    throw new Error(`${why} in: ${expr}`);
  };
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i] as Token;
    const next = tokens[i + 1];
    if (token.kind === 'punct' && token.text === '[') {
      // A range or subquery: durations only.
      while (i < tokens.length && tokens[i]?.text !== ']') i++;
      continue;
    }
    if (token.kind === 'punct' && token.text === '{') fail('a selector without a metric name');
    if (token.kind !== 'ident') continue;
    if (LABEL_LISTS.has(token.text)) {
      if (next?.text === '(') while (i < tokens.length && tokens[i]?.text !== ')') i++;
      continue;
    }
    if (KEYWORDS.has(token.text) || next?.text === '(' || (AGGREGATIONS.has(token.text) && (next?.text === 'by' || next?.text === 'without'))) continue;
    const labels: string[] = [];
    if (next?.text === '{') {
      for (i += 2; tokens[i]?.text !== '}'; i++) {
        const name = tokens[i];
        const op = tokens[i + 1];
        const value = tokens[i + 2];
        if (name?.kind !== 'ident' || op === undefined || !['=', '!=', '=~', '!~'].includes(op.text) || value?.kind !== 'string') fail(`a label matcher it cannot read at "${name?.text ?? ''}"`);
        labels.push((name as Token).text);
        i += 2;
        if (tokens[i + 1]?.text === ',') i++;
        if (i + 1 >= tokens.length) fail('an unclosed label matcher list');
      }
    }
    selectors.push({ metric: token.text, labels });
  }
  return selectors;
}
