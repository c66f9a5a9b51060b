/**
 * The erasure RPCs of hyphae.v1.MemoryService (docs/forgetting.md): each request becomes the object
 * /v1/admin/agents/{agent}/memories, /v1/admin/tenant or /v1/admin/erasures would have parsed,
 * validated with the same schema, so gRPC answers REST's receipts with the same error codes; who
 * may erase is the facade's to decide.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import { eraseAgentInputSchema, eraseTenantInputSchema, listErasureReceiptsInputSchema } from '../core/erasure-schemas.js';
import { parseInput } from '../service/index.js';
import { principalOf } from './call-context.js';
import {
  EraseAgentMemoriesRequestSchema,
  EraseAgentMemoriesResponseSchema,
  EraseTenantRequestSchema,
  EraseTenantResponseSchema,
  ListErasureReceiptsRequestSchema,
  ListErasureReceiptsResponseSchema,
  type MemoryService,
} from './gen/hyphae/v1/memory_pb.js';
import { fieldsOf, messageOf } from './message-mapping.js';
import type { MemoryServiceFacade } from './memory-service.js';

export type ErasureRpcs = Pick<ServiceImpl<typeof MemoryService>, 'eraseAgentMemories' | 'eraseTenant' | 'listErasureReceipts'>;

export function erasureRpcs(facade: MemoryServiceFacade): ErasureRpcs {
  return {
    async eraseAgentMemories(request, context) {
      const input = parseInput(eraseAgentInputSchema, fieldsOf(EraseAgentMemoriesRequestSchema, request));
      return messageOf(EraseAgentMemoriesResponseSchema, { receipt: await facade.eraseAgentMemories(principalOf(context), input) });
    },
    async eraseTenant(request, context) {
      const answer = await facade.eraseTenant(principalOf(context), parseInput(eraseTenantInputSchema, fieldsOf(EraseTenantRequestSchema, request)));
      return messageOf(EraseTenantResponseSchema, 'confirmation_token' in answer ? { confirmation: answer } : { receipt: answer });
    },
    async listErasureReceipts(request, context) {
      const input = parseInput(listErasureReceiptsInputSchema, fieldsOf(ListErasureReceiptsRequestSchema, request));
      return messageOf(ListErasureReceiptsResponseSchema, await facade.listErasureReceipts(principalOf(context), input));
    },
  };
}
