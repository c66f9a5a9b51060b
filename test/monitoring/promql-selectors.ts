// The series selectors of a PromQL expression (metric name and matched label names), read with
// Prometheus's own Lezer grammar. Grafana's interval variables become a duration first; its other
// variables only ever stand inside label values, which PromQL reads as strings.
import { parser } from '@prometheus-io/lezer-promql';
import type { SyntaxNode } from '@lezer/common';

export interface SeriesSelector {
  readonly metric: string;
  readonly labels: readonly string[];
}

const GRAFANA_INTERVALS = /\$__(rate_interval|interval|range)\b|\$\{__(rate_interval|interval|range)\}/g;

/** Selectors in order of appearance; throws naming the expression when it does not parse. */
export function seriesSelectors(expr: string): SeriesSelector[] {
  const promql = expr.replace(GRAFANA_INTERVALS, '5m');
  const tree = parser.parse(promql);
  const selectors: SeriesSelector[] = [];
  let syntaxError: number | undefined;
  tree.iterate({
    enter(node) {
      if (node.type.isError) syntaxError ??= node.from;
      if (node.name !== 'VectorSelector') return;
      const identifier = node.node.getChild('Identifier');
      if (identifier === null) throw new Error(`a selector without a metric name in: ${expr}`);
      selectors.push({ metric: text(promql, identifier), labels: matchedLabels(promql, node.node) });
    },
  });
  if (syntaxError !== undefined) throw new Error(`PromQL syntax error at ${syntaxError} in: ${expr}`);
  return selectors;
}

function matchedLabels(promql: string, selector: SyntaxNode): string[] {
  const matchers = selector.getChild('LabelMatchers');
  if (matchers === null) return [];
  return matchers.getChildren('UnquotedLabelMatcher').map((m) => {
    const name = m.getChild('LabelName');
    if (name === null) throw new Error(`a label matcher without a name in: ${promql}`);
    return text(promql, name);
  });
}

const text = (source: string, node: SyntaxNode): string => source.slice(node.from, node.to);
