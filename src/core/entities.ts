/**
 * What the memory facade returns. The shapes are the wire shapes of SPEC §3 (snake_case), so
 * every surface serialises them as they are; output schemas live beside them in output-schemas.ts.
 */
import type { CellType, DiffOp, Layer, Role } from './cell-types.js';

export interface SourceRef {
  readonly kind: string;
  readonly locator: string;
}

export interface MemoryNode {
  readonly node_id: string;
  readonly project: string;
  readonly content: string;
  readonly cell_type: CellType;
  readonly salience: number;
  readonly scene_id: string | null;
  readonly session_id: string | null;
  readonly source_agent: string;
  readonly source_ref: SourceRef | null;
  readonly metadata: Record<string, unknown>;
  readonly layer: Layer;
  readonly energy: number;
  readonly hits: number;
  readonly created_at: string;
  readonly updated_at: string;
  /** When this version became current (its store time). */
  readonly valid_from: string;
  /** When a newer version superseded it; null while it is current. */
  readonly valid_until: string | null;
  /** The version this one replaced, if any. */
  readonly supersedes: string | null;
  /** The version that replaced this one, if any. */
  readonly superseded_by: string | null;
  /** Stores that restated this cell and reinforced it instead of writing their own. */
  readonly corroborations: number;
  /** The agents who stated it: its author first, then each agent that restated it. */
  readonly stated_by: readonly string[];
  /** Its author's trust, raised by each further agent that restated it. */
  readonly trust: number;
}

/** What an admin purge of a project erased, by kind. */
export interface PurgedProject {
  readonly project: string;
  readonly cells: number;
  readonly scenes: number;
  readonly sessions: number;
  readonly beacons: number;
  readonly diffs: number;
}

/** What a store answers: the cell, and whether the store reinforced it rather than writing it. */
export interface StoredNode extends MemoryNode {
  readonly reinforced: boolean;
}

export interface RecallHit {
  readonly node_id: string;
  readonly distance: number;
  /** Present when the caller asked for hydrated nodes (REST); MCP returns ids only. */
  readonly node?: MemoryNode;
}

export interface RecallResult {
  readonly results: readonly RecallHit[];
}

export interface SessionOpened {
  readonly session_id: string;
  readonly scene_id: string;
  readonly opened_at: string;
}

export interface SessionClosed {
  readonly session_id: string;
  readonly closed_at: string;
}

export interface Scene {
  readonly scene_id: string;
  readonly project: string;
  readonly title: string | null;
  readonly created_by: string;
  readonly created_at: string;
  readonly cell_count: number;
  readonly consolidated: boolean;
}

export interface SceneWithCells extends Scene {
  readonly cell_ids: readonly string[];
  /** Present when the caller asked for hydrated cells (REST). */
  readonly cells?: readonly MemoryNode[];
}

export interface Beacon {
  readonly beacon_id: string;
  readonly owner_agent: string;
  readonly project: string | null;
  readonly text: string;
  readonly threshold: number;
  readonly cell_types: readonly CellType[] | null;
  readonly scene_id: string | null;
  readonly include_own: boolean;
  readonly expires_at: string | null;
  readonly created_at: string;
}

export interface Diff {
  readonly diff_id: string;
  readonly seq: number;
  readonly op: DiffOp;
  readonly node_id: string;
  readonly beacon_id: string;
  readonly similarity: number;
  readonly cell_type: CellType;
  readonly salience: number;
  readonly source_agent: string;
  readonly project: string;
  readonly scene_id: string | null;
  readonly preview: string;
  readonly created_at: string;
  /** On an `updated` diff: the node the new one (`node_id`) supersedes; otherwise null. */
  readonly supersedes: string | null;
}

export interface Page<T> {
  readonly items: readonly T[];
  readonly next_cursor: string | null;
}

export interface DiffsSince {
  readonly diffs: readonly Diff[];
  readonly next_since: string;
}

export interface DrainedInbox {
  readonly diffs: readonly Diff[];
  readonly has_more: boolean;
}

/** The inbox read without moving its cursor: undelivered diffs, oldest first. */
export interface InboxPeek {
  readonly diffs: readonly Diff[];
  readonly has_more: boolean;
  /** The drain cursor: diffs at or below it were delivered by drain_inbox. */
  readonly cursor_seq: number;
  /** The newest seq the inbox holds (0 when it never received a diff). */
  readonly head_seq: number;
}

/** What reached an agent's inbox that neither drain_inbox nor its channel has dealt with: summed, not listed. */
export interface ChannelBacklog {
  /** The inbox head: the backlog covers every seq up to it. */
  readonly head_seq: number;
  readonly groups: readonly { readonly cell_type: CellType; readonly source_agent: string; readonly count: number }[];
}

export interface ApiKeyInfo {
  readonly key_id: string;
  readonly tenant: string;
  readonly agent: string;
  readonly roles: readonly Role[];
  readonly projects: readonly string[];
  readonly default_project: string;
  readonly trust: number;
  readonly key_prefix: string;
  readonly created_at: string;
  readonly revoked_at: string | null;
}

export interface CreatedApiKey extends ApiKeyInfo {
  /** The clear key: shown exactly once, never stored. */
  readonly key: string;
}
