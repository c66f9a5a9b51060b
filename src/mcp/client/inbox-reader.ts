/**
 * Reading the inbox without draining it, in-process (through the facade) or from a running server
 * (`resources/read hyphae://inbox?after_seq=N` over POST /mcp). `hyphae hook` uses either.
 */
import type { InboxPeek } from '../../core/entities.js';
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { UnauthenticatedError, UnavailableError } from '../../core/errors.js';
import { API_KEY_HEADER } from '../../surface-shared/index.js';
import { isPlainObject } from '../protocol/json-rpc.js';
import { LATEST_PROTOCOL_VERSION } from '../protocol/protocol-version.js';
import { INBOX_READ_LIMIT } from '../features/resources/resource-methods.js';
import { INBOX_URI } from '../features/resources/resource-uris.js';

export interface InboxReader {
  /** Undelivered diffs after `afterSeq` (and after the drain cursor), oldest first. */
  peek(afterSeq: number): Promise<InboxPeek>;
}

export function facadeInboxReader(facade: Pick<MemoryFacade, 'peekInbox'>, principal: Principal): InboxReader {
  return { peek: (afterSeq) => facade.peekInbox(principal, { limit: INBOX_READ_LIMIT, after_seq: afterSeq }) };
}

function isInboxPeek(value: unknown): value is InboxPeek {
  return isPlainObject(value) && Array.isArray(value.diffs) && typeof value.head_seq === 'number' && typeof value.cursor_seq === 'number';
}

export function remoteInboxReader(url: string, apiKey: string, fetchImpl: typeof fetch = fetch): InboxReader {
  return {
    async peek(afterSeq): Promise<InboxPeek> {
      let response: Response;
      try {
        response = await fetchImpl(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            [API_KEY_HEADER]: apiKey,
            'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri: `${INBOX_URI}?after_seq=${afterSeq}` } }),
          signal: AbortSignal.timeout(10_000),
        });
      } catch (error) {
        throw new UnavailableError(`the Hyphae server at ${url} is unreachable`, { cause: error });
      }
      if (response.status === 401) throw new UnauthenticatedError('HYPHAE_API_KEY was not accepted by the server');
      const body: unknown = await response.json().catch(() => undefined);
      const contents = isPlainObject(body) && isPlainObject(body.result) && Array.isArray(body.result.contents) ? body.result.contents : [];
      const json: unknown = contents.find((item: unknown) => isPlainObject(item) && item.mimeType === 'application/json');
      const peek: unknown = isPlainObject(json) && typeof json.text === 'string' ? JSON.parse(json.text) : undefined;
      if (!isInboxPeek(peek)) throw new UnavailableError(`the Hyphae server at ${url} answered HTTP ${response.status} without an inbox`);
      return peek;
    },
  };
}
