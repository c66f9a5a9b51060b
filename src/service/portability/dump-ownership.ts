/**
 * Keeps an import inside its tenants: an id the file gives a row of tenant T must be absent from
 * the target or already T's, and a key's hash must be absent or already that key's. Ids are
 * checked in batches against the target, once while the file is validated and again inside the
 * writing transaction (something may have been stored in between).
 */
import { ConflictError } from '../../core/errors.js';
import type { ExportRecord } from '../../core/export-format.js';
import type { Queryable } from '../../store/db.js';
import { idOwners, keyHashOwners, type GlobalIdKind } from '../../store/import-repository.js';

interface Claim {
  readonly id: string;
  readonly tenant: string;
  readonly line: number;
}

const BATCH = 1000;

/** The id a record claims across tenants, if its kind has one. */
function claimedId(record: ExportRecord): { kind: GlobalIdKind; id: string } | null {
  switch (record.type) {
    case 'cell':
      return { kind: 'cell', id: record.node_id };
    case 'beacon':
      return { kind: 'beacon', id: record.beacon_id };
    case 'key':
      return { kind: 'key', id: record.key_id };
    case 'diff':
      return { kind: 'diff', id: record.diff_id };
    case 'corroboration':
      return { kind: 'corroboration', id: record.corroboration_id };
    case 'evidence':
      return { kind: 'evidence', id: record.evidence_id };
    default:
      return null;
  }
}

/** Collects claims and checks them a batch at a time; `flush()` checks what is left. */
export class OwnershipCheck {
  private readonly pending = new Map<GlobalIdKind, Claim[]>();
  private readonly hashes: (Claim & { readonly keyId: string })[] = [];
  private presentCellCount = 0;

  constructor(
    private readonly q: Queryable,
    private readonly source: string,
  ) {}

  async add(record: ExportRecord, line: number): Promise<void> {
    const claim = claimedId(record);
    if (claim === null) return;
    const list = this.pending.get(claim.kind) ?? [];
    list.push({ id: claim.id.toLowerCase(), tenant: record.tenant, line });
    this.pending.set(claim.kind, list);
    if (record.type === 'key') this.hashes.push({ id: record.key_hash, tenant: record.tenant, line, keyId: record.key_id.toLowerCase() });
    if (list.length >= BATCH) await this.checkKind(claim.kind);
    if (this.hashes.length >= BATCH) await this.checkHashes();
  }

  async flush(): Promise<void> {
    for (const kind of [...this.pending.keys()]) await this.checkKind(kind);
    await this.checkHashes();
  }

  /** Cells checked so far that the target already holds under their own tenant (an import adds none of them). */
  get presentCells(): number {
    return this.presentCellCount;
  }

  private async checkKind(kind: GlobalIdKind): Promise<void> {
    const claims = this.pending.get(kind) ?? [];
    this.pending.delete(kind);
    const owners = await idOwners(this.q, kind, claims.map((c) => c.id));
    for (const claim of claims) {
      const owner = owners.get(claim.id);
      if (owner === undefined) continue;
      if (owner !== claim.tenant) {
        throw new ConflictError(`${this.source}: line ${claim.line}: ${kind} ${claim.id} already exists in another tenant; an import never moves or merges rows across tenants`, {
          details: { line: claim.line, kind, id: claim.id },
        });
      }
      if (kind === 'cell') this.presentCellCount += 1;
    }
  }

  private async checkHashes(): Promise<void> {
    const claims = this.hashes.splice(0);
    const owners = await keyHashOwners(this.q, claims.map((c) => c.id));
    for (const claim of claims) {
      const owner = owners.get(claim.id);
      if (owner !== undefined && owner !== claim.keyId) {
        throw new ConflictError(`${this.source}: line ${claim.line}: key ${claim.keyId}: its hash already belongs to another key`, {
          details: { line: claim.line, kind: 'key', id: claim.keyId },
        });
      }
    }
  }
}
