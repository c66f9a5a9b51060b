/** A cells row as every cells statement returns it, and the column list that makes it. */
import type { MemoryNode } from '../core/entities.js';
import { isoText } from './sql-time.js';
import { vectorParamFromText, type VectorParam } from './vector-param.js';

/** A cell as stored: its wire shape without what is computed on read (energy, stated_by), with what stays inside. */
export type CellRow = Omit<MemoryNode, 'energy' | 'stated_by'> & {
  readonly tenant_id: string;
  /** The L0 cell an L2 copy was promoted from. */
  readonly origin_node_id: string | null;
  /** The L2 copy of this cell, once promoted. */
  readonly promoted_node_id: string | null;
  /** When energy last reinforced (a store, a hit, a restatement): its decay starts there. */
  readonly reinforced_at: string;
  /** Agents other than the author who restated it, in order of first restatement. */
  readonly corroborators: readonly string[];
};

/** The cell columns in wire-friendly form; `t` qualifies them when a statement joins another relation. */
export function cellColumns(t = ''): string {
  const c = (name: string): string => (t === '' ? name : `${t}.${name}`);
  return `${c('node_id')}::text AS node_id, ${c('tenant_id')} AS tenant_id, ${c('project')} AS project, ${c('content')} AS content,
  ${c('cell_type')} AS cell_type, ${c('salience')} AS salience, ${c('scene_id')}::text AS scene_id,
  ${c('session_id')}::text AS session_id, ${c('source_agent')} AS source_agent, ${c('source_ref')} AS source_ref,
  ${c('metadata')} AS metadata, ${c('layer')} AS layer, ${c('origin_node_id')}::text AS origin_node_id,
  ${c('promoted_node_id')}::text AS promoted_node_id, ${c('hits')} AS hits, ${isoText(c('reinforced_at'))} AS reinforced_at,
  ${isoText(c('created_at'))} AS created_at, ${isoText(c('updated_at'))} AS updated_at,
  ${isoText(c('valid_from'))} AS valid_from, ${isoText(c('valid_until'))} AS valid_until,
  ${c('supersedes')}::text AS supersedes, ${c('superseded_by')}::text AS superseded_by,
  ${c('corroborations')} AS corroborations, ${c('corroborators')} AS corroborators, ${c('trust')} AS trust,
  ${isoText(c('expires_at'))} AS expires_at`;
}

export const CELL_COLUMNS = cellColumns();

/** A cell with its embedding, ready to bind again (the gossip of a deleted or promoted cell). */
export type CellWithEmbedding = CellRow & { readonly embedding: VectorParam };

/** Rows that returned `embedding::text`: the text turned into the parameter form once, here. */
export function withEmbedding(rows: readonly (CellRow & { embedding: string })[]): CellWithEmbedding[] {
  return rows.map((row) => ({ ...row, embedding: vectorParamFromText(row.embedding) }));
}
