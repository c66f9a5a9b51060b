/** What a store carries besides its cell's identity and type, written alike as a new cell (cells) and as a restatement's record (corroborations). */
import type { SourceRef } from '../core/entities.js';

export interface StoreCarried {
  readonly content: string;
  readonly salience: number;
  readonly sceneId: string | null;
  readonly sessionId: string | null;
  readonly sourceRef: SourceRef | null;
  readonly metadata: Record<string, unknown>;
}

/** The columns of what a store carried, in the order of carriedParams. */
export const CARRIED_COLUMNS = 'content, salience, scene_id, session_id, source_ref, metadata';

/** The placeholders of carriedParams bound from $first on (source_ref and metadata as jsonb). */
export function carriedPlaceholders(first: number): string {
  const at = (offset: number): string => `$${first + offset}`;
  return `${at(0)}, ${at(1)}, ${at(2)}, ${at(3)}, ${at(4)}::jsonb, ${at(5)}::jsonb`;
}

/** The parameters of what a store carried, in the order of CARRIED_COLUMNS. */
export function carriedParams(carried: StoreCarried): unknown[] {
  return [
    carried.content,
    carried.salience,
    carried.sceneId,
    carried.sessionId,
    carried.sourceRef === null ? null : JSON.stringify(carried.sourceRef),
    JSON.stringify(carried.metadata),
  ];
}
