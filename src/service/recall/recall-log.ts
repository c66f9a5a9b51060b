/**
 * The recall log's service side (docs/feedback.md): each answered recall or query gets a fresh
 * request_id and one row saying who asked, what (the text, or only its SHA-256), with which
 * embedding and arguments, and what was ranked — what a later judgement of it needs.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { Principal } from '../../core/principal.js';
import { insertRecallRequest, type RecallOperation } from '../../store/recall-log-repository.js';
import type { VectorParam } from '../../store/vector-param.js';
import type { FacadeContext } from '../facade/facade-context.js';

export interface LoggedRecall {
  readonly operation: RecallOperation;
  readonly projects: readonly string[];
  readonly query: string;
  readonly vector: VectorParam;
  readonly arguments: Readonly<Record<string, unknown>>;
  readonly resultIds: readonly string[];
}

/** A new request id for an answer about to be logged. */
export function newRequestId(): string {
  return randomUUID();
}

/** Writes the request's row (one INSERT); the answer waits for it so feedback can name it at once. */
export async function logRecall(ctx: FacadeContext, principal: Principal, requestId: string, recall: LoggedRecall): Promise<void> {
  await insertRecallRequest(ctx.db, {
    tenantId: principal.tenantId,
    requestId,
    agent: principal.agent,
    human: principal.human === true,
    operation: recall.operation,
    projects: recall.projects,
    queryText: ctx.config.recallLogText ? recall.query : null,
    querySha256: createHash('sha256').update(recall.query, 'utf8').digest('hex'),
    queryEmbedding: recall.vector,
    embeddingModel: ctx.embedder.modelId,
    arguments: recall.arguments,
    resultIds: recall.resultIds,
    createdAt: ctx.clock(),
  });
}
