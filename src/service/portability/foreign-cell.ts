/**
 * How a memory from another tool becomes a cell: owned by the tenant and agent the import names (the
 * foreign file carries no Hyphae identity), in one project, with an id derived from the tenant,
 * agent, project and the memory's own identity, so that importing the same file again finds the
 * same ids and adds nothing.
 */
import { createHash } from 'node:crypto';
import type { ExportCell } from '../../core/export-format.js';
import { exportCellSchema } from '../../core/export-record-lines.js';
import type { CellType } from '../../core/cell-types.js';
import { parseLine } from './dump-items.js';

/** Whose cells a foreign import writes. */
export interface ForeignImportTarget {
  readonly tenant: string;
  readonly agent: string;
  readonly project: string;
  /** The time of record for memories that carry none. */
  readonly now: Date;
}

/** A UUID (RFC 9562 version 8) from the SHA-256 of the parts: the same parts, the same id. */
export function derivedUuid(parts: readonly string[]): string {
  const bytes = createHash('sha256').update(JSON.stringify(parts)).digest().subarray(0, 16);
  bytes[6] = ((bytes[6] ?? 0) & 0x0f) | 0x80;
  bytes[8] = ((bytes[8] ?? 0) & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

export interface ForeignMemory {
  /** Identifies the memory within its file (e.g. entity and observation): with the target, it derives the id. */
  readonly identity: readonly string[];
  readonly content: string;
  readonly cellType: CellType;
  readonly metadata: Record<string, unknown>;
  readonly createdAt?: string;
  readonly updatedAt?: string;
}

/** The cell line for a foreign memory, validated like any line of an export. */
export function foreignCell(source: string, line: number, format: string, target: ForeignImportTarget, memory: ForeignMemory): ExportCell {
  const createdAt = memory.createdAt ?? target.now.toISOString();
  const cell = {
    type: 'cell',
    tenant: target.tenant,
    node_id: derivedUuid([format, target.tenant, target.agent, target.project, ...memory.identity]),
    project: target.project,
    layer: 'L0',
    cell_type: memory.cellType,
    content: memory.content,
    salience: 0.5,
    scene_id: null,
    session_id: null,
    source_agent: target.agent,
    source_ref: null,
    metadata: memory.metadata,
    idempotency_key: null,
    origin_node_id: null,
    promoted_node_id: null,
    hits: 0,
    created_at: createdAt,
    updated_at: memory.updatedAt ?? createdAt,
    reinforced_at: createdAt,
    valid_from: createdAt,
    valid_until: null,
    supersedes: null,
    superseded_by: null,
    corroborations: 0,
    corroborators: [],
    trust: 0.5,
    reinforcement_keys: [],
  };
  return parseLine(source, line, exportCellSchema, cell, `${format} memory`);
}
