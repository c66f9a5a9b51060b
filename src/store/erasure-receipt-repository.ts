/** SQL of erasure receipts (append-only, migration 0023) and of the tenant erasure's confirmation tokens (0024). */
import type { Queryable } from './db.js';
import type { ErasureCounts } from './erasure-repository.js';
import { isoText } from './sql-time.js';

export interface ReceiptRow {
  readonly receipt_id: string;
  readonly actor_agent: string;
  readonly actor_key: string | null;
  readonly selector: Record<string, unknown>;
  readonly counts: ErasureCounts;
  readonly started_at: string;
  readonly erased_at: string;
}

export interface NewReceipt {
  readonly receiptId: string;
  readonly tenantId: string;
  readonly actorAgent: string;
  readonly actorKey: string | null;
  readonly selector: Record<string, unknown>;
  readonly counts: ErasureCounts;
  readonly startedAt: Date;
  readonly erasedAt: Date;
}

const RECEIPT_COLUMNS = `receipt_id::text AS receipt_id, actor_agent, actor_key, selector, counts, ${isoText('started_at')} AS started_at, ${isoText('erased_at')} AS erased_at`;

export async function insertReceipt(q: Queryable, receipt: NewReceipt): Promise<ReceiptRow> {
  const result = await q.query<ReceiptRow>(
    `INSERT INTO erasure_receipts (receipt_id, tenant_id, actor_agent, actor_key, selector, counts, started_at, erased_at)
     VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb, $7, $8) RETURNING ${RECEIPT_COLUMNS}`,
    [
      receipt.receiptId,
      receipt.tenantId,
      receipt.actorAgent,
      receipt.actorKey,
      JSON.stringify(receipt.selector),
      JSON.stringify(receipt.counts),
      receipt.startedAt.toISOString(),
      receipt.erasedAt.toISOString(),
    ],
  );
  const row = result.rows[0];
  if (row === undefined) throw new Error('the receipt insert returned no row');
  return row;
}

/** The tenant's receipts newest first, after a (erased_at, receipt_id) position; up to limit + 1 rows. */
export async function listReceipts(q: Queryable, tenantId: string, after: { readonly erasedAt: string; readonly receiptId: string } | null, limit: number): Promise<ReceiptRow[]> {
  const result = await q.query<ReceiptRow>(
    `SELECT ${RECEIPT_COLUMNS} FROM erasure_receipts
     WHERE tenant_id = $1 AND ($2::timestamptz IS NULL OR (erased_at, receipt_id) < ($2::timestamptz, $3::uuid))
     ORDER BY erased_at DESC, receipt_id DESC LIMIT $4`,
    [tenantId, after?.erasedAt ?? null, after?.receiptId ?? null, limit + 1],
  );
  return result.rows;
}

/** Records a confirmation token's hash for the tenant and the key that asked; expired ones are dropped on the way. */
export async function insertTenantConfirmation(q: Queryable, tokenHash: Buffer, tenantId: string, keyId: string, expiresAt: Date, now: Date): Promise<void> {
  await q.query(`DELETE FROM tenant_erasure_confirmations WHERE expires_at <= $1`, [now.toISOString()]);
  await q.query(`INSERT INTO tenant_erasure_confirmations (token_hash, tenant_id, key_id, expires_at) VALUES ($1, $2, $3, $4)`, [tokenHash, tenantId, keyId, expiresAt.toISOString()]);
}

/** Uses a confirmation token: true (and it is gone) when it was issued to this tenant and key and has not expired. */
export async function consumeTenantConfirmation(q: Queryable, tokenHash: Buffer, tenantId: string, keyId: string, now: Date): Promise<boolean> {
  const result = await q.query(`DELETE FROM tenant_erasure_confirmations WHERE token_hash = $1 AND tenant_id = $2 AND key_id = $3 AND expires_at > $4`, [
    tokenHash,
    tenantId,
    keyId,
    now.toISOString(),
  ]);
  return result.rowCount === 1;
}
