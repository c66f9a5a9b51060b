/**
 * The facade's erasures of a whole agent and a whole tenant, and the receipts' listing
 * (docs/forgetting.md). Each needs an admin key scoped to every project of the tenant: what they
 * reach crosses projects. The tenant's erasure takes two calls, the second with the token the
 * first answered (bound to the tenant and the key, valid five minutes, used once).
 */
import { createHash, randomBytes } from 'node:crypto';
import {
  eraseAgentInputSchema,
  eraseTenantInputSchema,
  listErasureReceiptsInputSchema,
  type ErasureReceipt,
  type ErasureReceiptPage,
  type TenantErasureConfirmation,
} from '../../core/erasure-schemas.js';
import { InvalidArgumentError } from '../../core/errors.js';
import { consumeTenantConfirmation, insertTenantConfirmation, listReceipts } from '../../store/erasure-receipt-repository.js';
import { requireTenantScope } from '../facade/authorization.js';
import type { FacadeContext } from '../facade/facade-context.js';
import { parseInput } from '../facade/input-validation.js';
import { decodeCursor, pageOf } from '../facade/page-cursor.js';
import type { MemoryFacade } from '../memory-facade.js';
import { erasureActor } from './erasure-actor.js';

export type ErasureOperations = Pick<MemoryFacade, 'eraseAgentMemories' | 'eraseTenant' | 'listErasureReceipts'>;

/** How long a tenant erasure's confirmation token stays good. */
const CONFIRMATION_TTL_MS = 5 * 60_000;

export function erasureOperations(ctx: FacadeContext): ErasureOperations {
  return {
    async eraseAgentMemories(principal, raw): Promise<ErasureReceipt> {
      requireTenantScope(principal);
      const { agent } = parseInput(eraseAgentInputSchema, raw);
      return ctx.erasure.erase(erasureActor(principal), { kind: 'agent', agent });
    },

    async eraseTenant(principal, raw): Promise<TenantErasureConfirmation | ErasureReceipt> {
      requireTenantScope(principal);
      const { confirmation } = parseInput(eraseTenantInputSchema, raw);
      const now = ctx.clock();
      if (confirmation === undefined) {
        const token = randomBytes(32).toString('base64url');
        const expiresAt = new Date(now.getTime() + CONFIRMATION_TTL_MS);
        await insertTenantConfirmation(ctx.db, tokenHash(token), principal.tenantId, principal.keyId, expiresAt, now);
        return { confirmation_token: token, expires_at: expiresAt.toISOString() };
      }
      if (!(await consumeTenantConfirmation(ctx.db, tokenHash(confirmation), principal.tenantId, principal.keyId, now))) {
        throw new InvalidArgumentError('confirmation is not a token issued to this key for this tenant, or it expired; ask for a new one', [
          { path: 'confirmation', message: 'unknown, used, expired or issued to another key' },
        ]);
      }
      return ctx.erasure.erase(erasureActor(principal), { kind: 'tenant' });
    },

    async listErasureReceipts(principal, raw): Promise<ErasureReceiptPage> {
      requireTenantScope(principal);
      const input = parseInput(listErasureReceiptsInputSchema, raw);
      const after = decodeCursor(input.cursor);
      const rows = await listReceipts(ctx.db, principal.tenantId, after === null ? null : { erasedAt: after.createdAt, receiptId: after.id }, input.limit);
      const page = pageOf(rows, input.limit, (row) => ({ createdAt: row.erased_at, id: row.receipt_id }));
      return { receipts: page.rows, next_cursor: page.next };
    },
  };
}

function tokenHash(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}
