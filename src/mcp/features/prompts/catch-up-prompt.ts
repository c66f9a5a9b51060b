/**
 * The `catch_up` prompt: what reached the caller's inbox and was not drained yet, as prompt
 * messages — a summary, then each named cell as an embedded resource (its markdown with the
 * provenance line) — so a host that offers prompts (a slash command, say) hands the model the
 * memories themselves. Getting the prompt reads; it never drains.
 */
import type { Diff } from '../../../core/entities.js';
import { isHyphaeError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { JsonObject, JsonRpcParams } from '../../protocol/json-rpc.js';
import { isPlainObject } from '../../protocol/json-rpc.js';
import type { ProtocolVersion } from '../../protocol/protocol-version.js';
import { supportsResourceLinks } from '../../protocol/protocol-version.js';
import { invalidParams } from '../../protocol/rpc-errors.js';
import { CELL_MIME_TYPE, cellMarkdown } from '../resources/cell-presentation.js';
import { inboxMarkdown } from '../resources/inbox-presentation.js';
import { cellUri } from '../resources/resource-uris.js';

export const CATCH_UP_PROMPT = 'catch_up';
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 50;

export function promptsList(version: ProtocolVersion): JsonObject {
  return {
    prompts: [
      {
        name: CATCH_UP_PROMPT,
        ...(supportsResourceLinks(version) ? { title: 'Catch up on shared memory' } : {}),
        description:
          'What other agents stored that matches your beacons and you have not drained yet: a summary, then each memory in full. ' +
          'Reading it does not drain the inbox; call drain_inbox afterwards to mark the diffs delivered.',
        arguments: [{ name: 'limit', description: `How many diffs at most (1–${MAX_LIMIT}, default ${DEFAULT_LIMIT})`, required: false }],
      },
    ],
  };
}

function limitOf(params: JsonRpcParams): number {
  const args = params.arguments;
  if (args === undefined || args === null) return DEFAULT_LIMIT;
  if (!isPlainObject(args)) throw invalidParams('arguments must be an object of strings');
  const unknown = Object.keys(args).filter((key) => key !== 'limit');
  if (unknown.length > 0) throw invalidParams(`unknown argument ${unknown[0] ?? ''}`);
  if (args.limit === undefined) return DEFAULT_LIMIT;
  const limit = typeof args.limit === 'string' && /^\d{1,3}$/.test(args.limit) ? Number(args.limit) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIMIT)) throw invalidParams(`limit must be an integer from 1 to ${MAX_LIMIT}`);
  return limit;
}

/** One cell per message; a cell deleted since its diff (or out of reach) is left to the summary's preview. */
async function embeddedCells(facade: MemoryFacade, principal: Principal, diffs: readonly Diff[]): Promise<unknown[]> {
  const seen = new Set<string>();
  const messages: unknown[] = [];
  for (const diff of diffs) {
    if (diff.op === 'deleted' || seen.has(diff.node_id)) continue;
    seen.add(diff.node_id);
    try {
      const node = await facade.getCell(principal, diff.node_id);
      messages.push({
        role: 'user',
        content: { type: 'resource', resource: { uri: cellUri(node.node_id), mimeType: CELL_MIME_TYPE, text: cellMarkdown(node) } },
      });
    } catch (error) {
      if (!isHyphaeError(error) || error.code !== 'NOT_FOUND') throw error;
    }
  }
  return messages;
}

export async function getPrompt(facade: MemoryFacade, principal: Principal, params: JsonRpcParams): Promise<JsonObject> {
  if (params.name !== CATCH_UP_PROMPT) throw invalidParams(`unknown prompt ${typeof params.name === 'string' ? params.name.slice(0, 64) : ''}`);
  const peek = await facade.peekInbox(principal, { limit: limitOf(params) });
  const closing =
    peek.diffs.length === 0
      ? ''
      : '\nThe memories follow in full. When you have taken them in, call drain_inbox so they are marked delivered.';
  return {
    description: `${peek.diffs.length} undelivered diff${peek.diffs.length === 1 ? '' : 's'} from your Hyphae inbox`,
    messages: [
      { role: 'user', content: { type: 'text', text: `${inboxMarkdown(peek)}${closing}` } },
      ...(await embeddedCells(facade, principal, peek.diffs)),
    ],
  };
}
