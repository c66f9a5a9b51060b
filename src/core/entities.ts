/**
 * What the memory facade returns: the wire shapes (snake_case) every surface serialises as they
 * are. Each is the output type of its schema in output-schemas.ts, so the schema that documents and
 * checks a response is the one definition of its shape.
 */
import type { z } from 'zod';
import type { CellType } from './cell-types.js';
import type {
  apiKeyInfoSchema,
  beaconSchema,
  cellHistorySchema,
  corroborationSchema,
  createdApiKeySchema,
  diffSchema,
  diffsSinceSchema,
  drainedInboxSchema,
  memoryNodeSchema,
  purgedProjectSchema,
  recallIdsResultSchema,
  sceneSchema,
  sceneWithCellIdsSchema,
  sessionClosedSchema,
  sessionOpenedSchema,
  sourceRefOutputSchema,
  storedNodeSchema,
} from './output-schemas.js';

/** A schema's output as the facade hands it out: every field and every array read-only. */
type WireShape<T> = T extends readonly (infer E)[] ? readonly WireShape<E>[] : T extends object ? { readonly [K in keyof T]: WireShape<T[K]> } : T;

export type Output<S extends z.ZodType> = WireShape<z.output<S>>;

export type SourceRef = Output<typeof sourceRefOutputSchema>;

/** A stored cell; `stated_by` lists its author first, then each agent that restated it. */
export type MemoryNode = Output<typeof memoryNodeSchema>;

/** What a store answers: the cell, and whether the store reinforced it rather than writing it. */
export type StoredNode = Output<typeof storedNodeSchema>;

/** What a reinforcing store carried, kept with the cell it reinforced. */
export type Corroboration = Output<typeof corroborationSchema>;

/** A cell's supersession chain, oldest first, and the restatements that reinforced its versions. */
export type CellHistory = Output<typeof cellHistorySchema>;

/** What an admin purge of a project erased, by kind. */
export type PurgedProject = Output<typeof purgedProjectSchema>;

export type RecallHit = Output<typeof recallIdsResultSchema>['results'][number] & {
  /** Present when the caller asked for hydrated nodes (REST); MCP returns ids only. */
  readonly node?: MemoryNode;
};

export interface RecallResult {
  /** Names this answer in the recall log: what feedback judges (docs/feedback.md). */
  readonly request_id: string;
  readonly results: readonly RecallHit[];
}

export type SessionOpened = Output<typeof sessionOpenedSchema>;
export type SessionClosed = Output<typeof sessionClosedSchema>;

export type Scene = Output<typeof sceneSchema>;

export type SceneWithCells = Output<typeof sceneWithCellIdsSchema> & {
  /** Present when the caller asked for hydrated cells (REST). */
  readonly cells?: readonly MemoryNode[];
};

export type Beacon = Output<typeof beaconSchema>;

/** A change gossiped to a beacon owner; on an `updated` diff `supersedes` names the node that `node_id` replaces. */
export type Diff = Output<typeof diffSchema>;

export interface Page<T> {
  readonly items: readonly T[];
  readonly next_cursor: string | null;
}

export type DiffsSince = Output<typeof diffsSinceSchema>;
export type DrainedInbox = Output<typeof drainedInboxSchema>;

/** The inbox read without moving its cursor: undelivered diffs, oldest first. */
export type InboxPeek = DrainedInbox & {
  /** The drain cursor: diffs at or below it were delivered by drain_inbox. */
  readonly cursor_seq: number;
  /** The newest seq the inbox holds (0 when it never received a diff). */
  readonly head_seq: number;
};

/** What reached an agent's inbox that neither drain_inbox nor its channel has dealt with: summed, not listed. */
export interface ChannelBacklog {
  /** The inbox head: the backlog covers every seq up to it. */
  readonly head_seq: number;
  /** cell_type "document": diffs about sources (docs/sources.md), counted as documents. */
  readonly groups: readonly { readonly cell_type: CellType | 'document'; readonly source_agent: string; readonly count: number }[];
}

export type ApiKeyInfo = Output<typeof apiKeyInfoSchema>;

/** A new key with its clear secret: shown exactly once, never stored. */
export type CreatedApiKey = Output<typeof createdApiKeySchema>;
