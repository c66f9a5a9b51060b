/** Requests and answers of erasure (docs/forgetting.md), shared by every surface like core/schemas.ts. */
import { z } from 'zod';
import { agentNameSchema } from './schemas.js';

export const deleteCellOptionsSchema = z.strictObject({
  include_history: z.boolean().default(false).describe('Erase every version of the cell’s supersession chain too (default: this version only)'),
});
export type DeleteCellOptions = z.input<typeof deleteCellOptionsSchema>;

export const eraseAgentInputSchema = z.strictObject({ agent: agentNameSchema.describe('The agent whose memories are erased') });
export type EraseAgentInput = z.output<typeof eraseAgentInputSchema>;

export const eraseTenantInputSchema = z.strictObject({
  confirmation: z
    .string()
    .regex(/^[A-Za-z0-9_-]{43}$/, 'a confirmation token this server issued')
    .optional()
    .describe('The token a first call without it answered; with it the tenant is erased'),
});
export type EraseTenantInput = z.output<typeof eraseTenantInputSchema>;

export const listErasureReceiptsInputSchema = z.strictObject({
  cursor: z.string().min(1).max(512).optional().describe('Opaque cursor from a previous page'),
  limit: z.int().min(1).max(100).default(50).describe('Receipts per page (1–100)'),
});
export type ListErasureReceiptsInput = z.output<typeof listErasureReceiptsInputSchema>;

export const erasureReceiptSchema = z
  .strictObject({
    receipt_id: z.uuid(),
    actor_agent: z.string().describe('Who erased: the agent of the key, or system:expiry'),
    actor_key: z.string().nullable().describe('The key that asked; null for the server’s own expiry'),
    selector: z.record(z.string(), z.unknown()).describe('What was erased: kind and identifiers (never text)'),
    counts: z.record(z.string(), z.int().min(0)).describe('Copies removed, by kind (docs/forgetting.md); a kind with none is absent'),
    started_at: z.string(),
    erased_at: z.string(),
  })
  .describe('The receipt of one erasure, as kept in the append-only audit log');
export type ErasureReceipt = z.output<typeof erasureReceiptSchema>;

export const erasureReceiptPageSchema = z.strictObject({ receipts: z.array(erasureReceiptSchema), next_cursor: z.string().nullable() });
export type ErasureReceiptPage = z.output<typeof erasureReceiptPageSchema>;

export const tenantErasureConfirmationSchema = z
  .strictObject({
    confirmation_token: z.string().describe('Send it back as confirmation within expires_at, from the same key, to erase the tenant'),
    expires_at: z.string(),
  })
  .describe('The first step of a tenant erasure: nothing was erased yet');
export type TenantErasureConfirmation = z.output<typeof tenantErasureConfirmationSchema>;
