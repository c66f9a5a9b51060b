/**
 * What a tenant's own import (REST, an admin of the tenant) may not take from its file as written
 * (docs/export-format.md, "A tenant's import"): the principle is that it can bring about nothing
 * the admin could not do through the API. A key line must be one the importer could mint
 * (core/key-authority.ts); every agent a record names must already be an agent of the tenant (a
 * key or an inbox there, or a key line of the file); a cell's trust is computed from
 * the target's keys, its hits start at 0, no time (a source's too) lies in the future, and every idempotency key is
 * namespaced so that it can never answer a live store. The operator's `hyphae import` restores the
 * file as written (the operator owns the database).
 */
import { ForbiddenError } from '../../core/errors.js';
import { IMPORTED_KEY_PREFIX } from '../../core/idempotency-keys.js';
import { mintRefusal, type KeyReach } from '../../core/key-authority.js';
import type { ExportCell, ExportCorroboration, ExportEvidence, ExportKey, ExportRecord, ExportRelation, ExportSource } from '../../core/export-format.js';
import { DEFAULT_TRUST } from '../../core/principal.js';
import type { Queryable } from '../../store/db.js';
import { tenantAgents } from '../../store/agent-trust-repository.js';
import { agentTrusts, idOwners } from '../../store/import-repository.js';
import { activeAgentKeys } from '../../store/key-repository.js';

export interface TenantImport {
  readonly tenant: string;
  /** The importing principal's reach: a key line beyond it is refused, as its mint would be. */
  readonly importer: KeyReach;
  /** Agents the caller names itself (the importer, a foreign import's agent): always allowed. */
  readonly agents: readonly string[];
  /** The import's time: nothing imported is later. */
  readonly now: Date;
}


const BATCH = 1000;

/** Each agent name a record gives, with the field that gives it. */
function namedAgents(record: ExportRecord): { field: string; agent: string }[] {
  switch (record.type) {
    case 'scene':
      return [{ field: 'created_by', agent: record.created_by }];
    case 'session':
      return [{ field: 'agent', agent: record.agent }];
    case 'source':
      return [{ field: 'created_by', agent: record.created_by }];
    case 'cell':
      return [
        { field: 'source_agent', agent: record.source_agent },
        ...record.corroborators.map((agent) => ({ field: 'corroborators', agent })),
        ...record.reinforcement_keys.map((key) => ({ field: 'reinforcement_keys.agent', agent: key.agent })),
      ];
    case 'corroboration':
      return [{ field: 'agent', agent: record.agent }];
    case 'relation':
      return [{ field: 'created_by', agent: record.created_by }];
    case 'evidence':
      return [{ field: 'agent', agent: record.agent }];
    case 'beacon':
      return [{ field: 'owner_agent', agent: record.owner_agent }];
    case 'inbox':
      return [{ field: 'agent', agent: record.agent }];
    case 'diff':
      return [
        { field: 'recipient_agent', agent: record.recipient_agent },
        { field: 'source_agent', agent: record.source_agent },
      ];
    default:
      return [];
  }
}

/** Refuses (FORBIDDEN) a record naming an agent the tenant does not have; checked a batch at a time. */
export class TenantAgentCheck {
  private readonly known: Set<string>;
  private readonly pending = new Map<string, { field: string; line: number; type: string }>();

  constructor(
    private readonly q: Queryable,
    private readonly source: string,
    private readonly rules: TenantImport,
  ) {
    this.known = new Set(rules.agents);
  }

  async add(record: ExportRecord, line: number): Promise<void> {
    // A key line makes its agent one of the tenant's, as minting the key would — if the importer could mint it.
    if (record.type === 'key') {
      await this.admitKey(record, line);
      this.known.add(record.agent);
      return;
    }
    for (const { field, agent } of namedAgents(record)) {
      if (!this.known.has(agent) && !this.pending.has(agent)) this.pending.set(agent, { field, line, type: record.type });
    }
    if (this.pending.size >= BATCH) await this.flush();
  }

  /** A new unrevoked key is restored only when the importer could mint it for its agent; one the target holds adds nothing. */
  private async admitKey(key: ExportKey, line: number): Promise<void> {
    if (key.revoked_at !== null) return;
    if ((await idOwners(this.q, 'key', [key.key_id.toLowerCase()])).size > 0) return;
    const agentKeys = await activeAgentKeys(this.q, this.rules.tenant, key.agent);
    const known = agentKeys.length > 0 || (await tenantAgents(this.q, this.rules.tenant, [key.agent])).has(key.agent);
    const refusal = mintRefusal(this.rules.importer, key, agentKeys, known);
    if (refusal === null) return;
    throw new ForbiddenError(
      `${this.source}: line ${line}: key ${key.key_id} of agent "${key.agent}" reaches beyond what your key may mint (${refusal}); a tenant's import restores only keys its importer could mint`,
      { details: { line, exceeds: refusal } },
    );
  }

  async flush(): Promise<void> {
    if (this.pending.size === 0) return;
    const found = await tenantAgents(this.q, this.rules.tenant, [...this.pending.keys()]);
    for (const [agent, at] of this.pending) {
      if (!found.has(agent)) {
        throw new ForbiddenError(
          `${this.source}: line ${at.line}: the ${at.type}'s ${at.field} "${agent}" is not an agent of tenant "${this.rules.tenant}" (it has no key or inbox here): mint a key for it first, or have the operator restore the file with hyphae import`,
          { details: { line: at.line, field: at.field, agent } },
        );
      }
      this.known.add(agent);
    }
    this.pending.clear();
  }
}

function notLater(time: string, now: Date): string {
  return Date.parse(time) > now.getTime() ? now.toISOString() : time;
}

/**
 * The cells as a tenant import writes them: trust from the target's keys (noisy-or over the author
 * and its corroborators, as restatements raise it) and at most its author's or the importer's, hits 0, times no later than the import,
 * idempotency keys namespaced. Run inside the writing transaction, after the file's keys.
 */
export async function tenantCells(q: Queryable, rules: TenantImport, cells: readonly ExportCell[]): Promise<ExportCell[]> {
  const agents = [...new Set(cells.flatMap((cell) => [cell.source_agent, ...cell.corroborators]))];
  const trusts = await agentTrusts(q, rules.tenant, agents);
  const trustOf = (agent: string): number => trusts.get(agent) ?? DEFAULT_TRUST;
  const now = rules.now;
  return cells.map((cell) => {
    const stated = new Set([cell.source_agent, ...cell.corroborators]);
    const doubt = [...stated].reduce((product, agent) => product * (1 - trustOf(agent)), 1);
    return {
      ...cell,
      // Corroborators a file names are not restatements this tenant saw: they raise a cell at most
      // to its author's trust or the importer's own, never past every single agent's (noisy-or over ten names).
      trust: Math.min(Math.max(rules.importer.trust, trustOf(cell.source_agent)), Math.max(0, 1 - doubt)),
      hits: 0,
      created_at: notLater(cell.created_at, now),
      updated_at: notLater(cell.updated_at, now),
      reinforced_at: notLater(cell.reinforced_at, now),
      valid_from: notLater(cell.valid_from, now),
      valid_until: cell.valid_until === null ? null : notLater(cell.valid_until, now),
      idempotency_key: cell.idempotency_key === null ? null : `${IMPORTED_KEY_PREFIX}${cell.idempotency_key}`,
      reinforcement_keys: cell.reinforcement_keys.map((key) => ({
        ...key,
        idempotency_key: `${IMPORTED_KEY_PREFIX}${key.idempotency_key}`,
        created_at: notLater(key.created_at, now),
      })),
    };
  });
}

/** A corroboration record as a tenant import writes it: no later than the import. */
export function tenantCorroboration(rules: TenantImport, record: ExportCorroboration): ExportCorroboration {
  return { ...record, created_at: notLater(record.created_at, rules.now) };
}

/** A source as a tenant import writes it: no later than the import. */
export function tenantSource(rules: TenantImport, record: ExportSource): ExportSource {
  return { ...record, created_at: notLater(record.created_at, rules.now), updated_at: notLater(record.updated_at, rules.now) };
}

/** A relation as a tenant import writes it: no later than the import. */
export function tenantRelation(rules: TenantImport, record: ExportRelation): ExportRelation {
  return { ...record, created_at: notLater(record.created_at, rules.now) };
}

/**
 * Evidence as a tenant import writes it: weighing no more than its sender's feedback would weigh
 * now — trust at most the agent's (from the target's keys) or the importer's, weight at most that
 * trust, as the learner weighs it — and no later than the import. Run after the file's keys.
 */
export async function tenantEvidence(q: Queryable, rules: TenantImport, records: readonly ExportEvidence[]): Promise<ExportEvidence[]> {
  const trusts = await agentTrusts(q, rules.tenant, [...new Set(records.map((record) => record.agent))]);
  return records.map((record) => {
    const trust = Math.min(record.trust, Math.max(rules.importer.trust, trusts.get(record.agent) ?? DEFAULT_TRUST));
    return { ...record, trust, weight: Math.min(record.weight, trust), created_at: notLater(record.created_at, rules.now) };
  });
}
