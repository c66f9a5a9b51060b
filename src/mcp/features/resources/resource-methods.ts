/**
 * resources/list, resources/templates/list and resources/read. Every read goes through the memory
 * facade, so tenancy and project scope are decided there: a foreign or out-of-scope cell or source
 * is the same "resource not found" as one that never existed.
 */
import type { InboxPeek } from '../../../core/entities.js';
import { isHyphaeError } from '../../../core/errors.js';
import type { Principal } from '../../../core/principal.js';
import { MAX_SLICE_CHARS } from '../../../core/source-schemas.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { JsonObject, JsonRpcParams } from '../../protocol/json-rpc.js';
import type { ProtocolVersion } from '../../protocol/protocol-version.js';
import { RPC_RESOURCE_NOT_FOUND, RpcMethodError, invalidParams, toRpcError } from '../../protocol/rpc-errors.js';
import { cellMarkdown, linkToNode } from './cell-presentation.js';
import { CELL_MIME_TYPE } from './cell-presentation.js';
import { inboxMarkdown } from './inbox-presentation.js';
import { cellTemplate, inboxDescriptor, resourceDescriptor, sourceTemplate } from './resource-wire.js';
import { INBOX_URI, parseResourceUri } from './resource-uris.js';
import { sourceContents } from './source-presentation.js';
import { parseSourceUri } from './source-uris.js';
import { parseSourceChunksUri, sourceChunksContents, sourceChunksTemplate, type SourceChunksResourceUri } from './source-chunks-resource.js';
import { parseSubgraphUri, subgraphContents, subgraphTemplate, type SubgraphResourceUri } from './subgraph-resource.js';
import type { SourceResourceUri } from './source-uris.js';
import { subscriptionKeyOf } from './session-subscriptions.js';
import type { SessionSubscriptions } from '../../server/handshake-methods.js';
import type { ListenFilter } from '../../server/listen-filter.js';
import type { McpResourceFeature } from '../../server/mcp-features.js';
import { readListenFilter } from './listen-filter.js';

export const RESOURCES_PAGE_SIZE = 50;
/** Diffs one read of hyphae://inbox shows. */
export const INBOX_READ_LIMIT = 50;

export function resourceNotFound(uri: string): RpcMethodError {
  return new RpcMethodError({ code: RPC_RESOURCE_NOT_FOUND, message: 'Resource not found', data: { code: 'NOT_FOUND', uri } });
}

/** A facade failure on a resources method; a bad cursor is the caller's params. */
function asMethodError(error: unknown, uri?: string): RpcMethodError {
  if (isHyphaeError(error) && error.code === 'NOT_FOUND' && uri !== undefined) return resourceNotFound(uri);
  if (isHyphaeError(error) && error.code === 'INVALID_ARGUMENT') return invalidParams(error.message);
  return new RpcMethodError(toRpcError(error));
}

export function requireUri(params: JsonRpcParams): string {
  const uri = params.uri;
  if (typeof uri !== 'string' || uri === '') throw invalidParams('uri must be a resource URI');
  return uri;
}

function optionalCursor(params: JsonRpcParams): string | undefined {
  const cursor = params.cursor;
  if (cursor === undefined || cursor === null) return undefined;
  if (typeof cursor !== 'string' || cursor === '') throw invalidParams('cursor must be a cursor from a previous page');
  return cursor;
}

export function inboxContents(peek: InboxPeek, uri: string): Record<string, unknown>[] {
  return [
    { uri, mimeType: 'text/markdown', text: inboxMarkdown(peek) },
    { uri, mimeType: 'application/json', text: JSON.stringify(peek) },
  ];
}

export class ResourceMethods implements McpResourceFeature {
  constructor(private readonly facade: MemoryFacade) {}

  /** The caller's readable cells, newest first; the first page starts with the inbox. */
  async list(params: JsonRpcParams, principal: Principal, version: ProtocolVersion): Promise<JsonObject> {
    const cursor = optionalCursor(params);
    let page;
    try {
      page = await this.facade.listCells(principal, { limit: RESOURCES_PAGE_SIZE, ...(cursor === undefined ? {} : { cursor }) });
    } catch (error) {
      throw asMethodError(error);
    }
    const cells = page.items.map((node) => resourceDescriptor(linkToNode(node), version));
    return {
      resources: cursor === undefined ? [inboxDescriptor(version), ...cells] : cells,
      ...(page.next_cursor === null ? {} : { nextCursor: page.next_cursor }),
    };
  }

  templates(version: ProtocolVersion): JsonObject {
    return { resourceTemplates: [cellTemplate(version), sourceTemplate(version), subgraphTemplate(version), sourceChunksTemplate(version)] };
  }

  async read(params: JsonRpcParams, principal: Principal): Promise<JsonObject> {
    const uri = requireUri(params);
    const source = parseSourceUri(uri);
    if (source !== null) return this.readSource(source, uri, principal);
    const chunks = parseSourceChunksUri(uri);
    if (chunks !== null) return this.readSourceChunks(chunks, uri, principal);
    const subgraph = parseSubgraphUri(uri);
    if (subgraph !== null) return this.readSubgraph(subgraph, uri, principal);
    const target = parseResourceUri(uri);
    if (target === null) throw resourceNotFound(uri);
    try {
      if (target.kind === 'cell') {
        const node = await this.facade.getCell(principal, target.nodeId);
        return {
          contents: [
            { uri, mimeType: CELL_MIME_TYPE, text: cellMarkdown(node) },
            { uri, mimeType: 'application/json', text: JSON.stringify(node) },
          ],
        };
      }
      const peek = await this.facade.peekInbox(principal, {
        limit: INBOX_READ_LIMIT,
        ...(target.afterSeq === undefined ? {} : { after_seq: target.afterSeq }),
      });
      return { contents: inboxContents(peek, uri === INBOX_URI ? INBOX_URI : uri) };
    } catch (error) {
      throw asMethodError(error, uri);
    }
  }

  /** What surrounds a cell; a cell the caller cannot read is not found like an unknown id, a bound out of range is invalid params. */
  private async readSubgraph(target: SubgraphResourceUri, uri: string, principal: Principal): Promise<JsonObject> {
    const { nodeId, ...bounds } = target;
    try {
      return { contents: subgraphContents(await this.facade.cellSubgraph(principal, nodeId, bounds), uri) };
    } catch (error) {
      throw asMethodError(error, uri);
    }
  }

  /** A source's slice; another tenant's source, or one of a project outside the key's scope, is not found like an unknown id. */
  private async readSource(source: SourceResourceUri, uri: string, principal: Principal): Promise<JsonObject> {
    const limit = source.limit ?? MAX_SLICE_CHARS;
    try {
      const slice = await this.facade.readSource(principal, {
        source_id: source.sourceId,
        limit,
        ...(source.offset === undefined ? {} : { offset: source.offset }),
        ...(source.project === undefined ? {} : { project: source.project }),
      });
      return { contents: sourceContents(slice, uri, limit) };
    } catch (error) {
      if (isHyphaeError(error) && error.code === 'FORBIDDEN') throw resourceNotFound(uri);
      throw asMethodError(error, uri);
    }
  }

  /** A page of a source's chunks; not found exactly as the source itself would be. */
  private async readSourceChunks(target: SourceChunksResourceUri, uri: string, principal: Principal): Promise<JsonObject> {
    const { sourceId, ...options } = target;
    try {
      return { contents: sourceChunksContents(await this.facade.sourceChunks(principal, { source_id: sourceId, ...options }), uri, target.limit) };
    } catch (error) {
      if (isHyphaeError(error) && error.code === 'FORBIDDEN') throw resourceNotFound(uri);
      throw asMethodError(error, uri);
    }
  }

  readsOneCell(params: JsonRpcParams): boolean {
    return typeof params.uri === 'string' && parseResourceUri(params.uri)?.kind === 'cell';
  }

  listenFilter(params: JsonRpcParams, principal: Principal): Promise<ListenFilter> {
    return readListenFilter(params, principal, this.facade);
  }

  /** resources/subscribe and resources/unsubscribe: hyphae://inbox or one readable cell. */
  async setSubscription(subscribe: boolean, params: JsonRpcParams, subscriptions: SessionSubscriptions): Promise<JsonObject> {
    const uri = requireUri(params);
    const target = parseResourceUri(uri);
    if (target === null || (target.kind === 'inbox' && target.afterSeq !== undefined)) throw resourceNotFound(uri);
    const key = subscriptionKeyOf(target);
    try {
      if (subscribe) await subscriptions.add(key);
      else await subscriptions.remove(key);
    } catch (error) {
      throw asMethodError(error, uri);
    }
    return {};
  }
}
