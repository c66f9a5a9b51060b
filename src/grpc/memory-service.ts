/**
 * hyphae.v1.MemoryService over the one memory facade: each RPC turns its request into the shape
 * REST would have parsed (message-mapping.ts), validates it with the same shared schema, calls the
 * facade with the principal the call guard authenticated, and maps the result back. Authorisation
 * and tenancy stay in the facade; nothing here reads an identity from a message.
 */
import type { ServiceImpl } from '@connectrpc/connect';
import {
  createKeyInputSchema,
  drainInboxInputSchema,
  forgetCellsInputSchema,
  listBeaconsInputSchema,
  listCellsInputSchema,
  listScenesInputSchema,
  openSessionInputSchema,
  placeBeaconInputSchema,
  pullDiffsInputSchema,
  purgeProjectInputSchema,
  queryInputSchema,
  recallInputSchema,
  storeInputSchema,
  validityFields,
  validityInputSchema,
  type ValidityInput,
} from '../core/schemas.js';
import { deleteCellOptionsSchema } from '../core/erasure-schemas.js';
import { parseInput } from '../service/index.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { principalOf } from './call-context.js';
import type {
  MemoryService} from './gen/hyphae/v1/memory_pb.js';
import {
  CloseSessionResponseSchema,
  ConsolidateSceneResponseSchema,
  CreateKeyRequestSchema,
  CreateKeyResponseSchema,
  DeleteBeaconResponseSchema,
  DeleteCellResponseSchema,
  DrainInboxRequestSchema,
  DrainInboxResponseSchema,
  ForgetCellsRequestSchema,
  ForgetCellsResponseSchema,
  GetCellHistoryResponseSchema,
  GetCellResponseSchema,
  GetSceneResponseSchema,
  ListBeaconsRequestSchema,
  ListBeaconsResponseSchema,
  ListCellsRequestSchema,
  ListCellsResponseSchema,
  ListKeysResponseSchema,
  ListScenesRequestSchema,
  ListScenesResponseSchema,
  OpenSessionRequestSchema,
  OpenSessionResponseSchema,
  PlaceBeaconRequestSchema,
  PlaceBeaconResponseSchema,
  PullDiffsRequestSchema,
  PullDiffsResponseSchema,
  PurgeProjectRequestSchema,
  PurgeProjectResponseSchema,
  QueryRequestSchema,
  QueryResponseSchema,
  RecallRequestSchema,
  RecallResponseSchema,
  RevokeKeyResponseSchema,
  StoreRequestSchema,
  StoreResponseSchema,
} from './gen/hyphae/v1/memory_pb.js';
import { fieldsOf, messageOf } from './message-mapping.js';
import { relationRpcs } from './relation-rpcs.js';
import { sourceRpcs } from './source-rpcs.js';
import { feedbackRpcs } from './feedback-rpcs.js';
import { erasureRpcs } from './erasure-rpcs.js';
import { watchDiffs, type WatchDiffsOptions } from './watch-diffs.js';

/** gRPC reads may ask for superseded versions or a past instant, as REST's do. */
const recallRequestSchema = recallInputSchema.extend(validityFields);
const queryRequestSchema = queryInputSchema.extend(validityFields);

function splitValidity<T extends ValidityInput>(fields: T): { input: Omit<T, keyof ValidityInput>; validity: ValidityInput } {
  const { include_superseded, as_of, ...input } = fields;
  return {
    input,
    validity: { ...(include_superseded === undefined ? {} : { include_superseded }), ...(as_of === undefined ? {} : { as_of }) },
  };
}

export type MemoryServiceFacade = Omit<MemoryFacade, 'authenticate'>;

export function memoryService(facade: MemoryServiceFacade, options: WatchDiffsOptions): ServiceImpl<typeof MemoryService> {
  return {
    async store(request, context) {
      const input = parseInput(storeInputSchema, fieldsOf(StoreRequestSchema, request));
      const node = await facade.store(principalOf(context), input);
      return messageOf(StoreResponseSchema, { node, reinforced: node.reinforced });
    },
    async getCell(request, context) {
      // As REST's query schema does: a malformed instant is refused before the cell is looked up.
      const { as_of } = parseInput(validityInputSchema, request.asOf === undefined ? {} : { as_of: request.asOf });
      const node = await facade.getCell(principalOf(context), request.nodeId, as_of === undefined ? {} : { asOf: as_of });
      return messageOf(GetCellResponseSchema, { node });
    },
    async getCellHistory(request, context) {
      return messageOf(GetCellHistoryResponseSchema, await facade.cellHistory(principalOf(context), request.nodeId));
    },
    async listCells(request, context) {
      const page = await facade.listCells(principalOf(context), parseInput(listCellsInputSchema, fieldsOf(ListCellsRequestSchema, request)));
      return messageOf(ListCellsResponseSchema, { cells: page.items, next_cursor: page.next_cursor });
    },
    async deleteCell(request, context) {
      const options = parseInput(deleteCellOptionsSchema, request.includeHistory === undefined ? {} : { include_history: request.includeHistory });
      return messageOf(DeleteCellResponseSchema, { receipt: await facade.deleteCell(principalOf(context), request.nodeId, options) });
    },
    async forgetCells(request, context) {
      const input = parseInput(forgetCellsInputSchema, fieldsOf(ForgetCellsRequestSchema, request));
      return messageOf(ForgetCellsResponseSchema, await facade.forgetCells(principalOf(context), input));
    },
    async recall(request, context) {
      const { input, validity } = splitValidity(parseInput(recallRequestSchema, fieldsOf(RecallRequestSchema, request)));
      return messageOf(RecallResponseSchema, await facade.recall(principalOf(context), input, { withNodes: true, validity }));
    },
    async query(request, context) {
      const { input, validity } = splitValidity(parseInput(queryRequestSchema, fieldsOf(QueryRequestSchema, request)));
      return messageOf(QueryResponseSchema, await facade.query(principalOf(context), input, { withNodes: true, validity }));
    },
    async openSession(request, context) {
      const input = parseInput(openSessionInputSchema, fieldsOf(OpenSessionRequestSchema, request));
      return messageOf(OpenSessionResponseSchema, await facade.openSession(principalOf(context), input));
    },
    async closeSession(request, context) {
      return messageOf(CloseSessionResponseSchema, await facade.closeSession(principalOf(context), { session_id: request.sessionId }));
    },
    async placeBeacon(request, context) {
      const input = parseInput(placeBeaconInputSchema, fieldsOf(PlaceBeaconRequestSchema, request));
      return messageOf(PlaceBeaconResponseSchema, { beacon: await facade.placeBeacon(principalOf(context), input) });
    },
    async listBeacons(request, context) {
      const page = await facade.listBeacons(principalOf(context), parseInput(listBeaconsInputSchema, fieldsOf(ListBeaconsRequestSchema, request)));
      return messageOf(ListBeaconsResponseSchema, { beacons: page.items, next_cursor: page.next_cursor });
    },
    async deleteBeacon(request, context) {
      await facade.deleteBeacon(principalOf(context), request.beaconId);
      return messageOf(DeleteBeaconResponseSchema, {});
    },
    async pullDiffs(request, context) {
      const input = parseInput(pullDiffsInputSchema, fieldsOf(PullDiffsRequestSchema, request));
      return messageOf(PullDiffsResponseSchema, await facade.pullDiffs(principalOf(context), input));
    },
    async drainInbox(request, context) {
      const input = parseInput(drainInboxInputSchema, fieldsOf(DrainInboxRequestSchema, request));
      return messageOf(DrainInboxResponseSchema, await facade.drainInbox(principalOf(context), input));
    },
    watchDiffs: (request, context) => watchDiffs(facade, principalOf(context), request.afterSeq, context.signal, options),
    async listScenes(request, context) {
      const page = await facade.listScenes(principalOf(context), parseInput(listScenesInputSchema, fieldsOf(ListScenesRequestSchema, request)));
      return messageOf(ListScenesResponseSchema, { scenes: page.items, next_cursor: page.next_cursor });
    },
    async getScene(request, context) {
      const scene = await facade.getScene(principalOf(context), request.sceneId, { withNodes: true });
      return messageOf(GetSceneResponseSchema, { scene, cell_ids: scene.cell_ids, cells: scene.cells ?? [] });
    },
    async consolidateScene(request, context) {
      return messageOf(ConsolidateSceneResponseSchema, { node: await facade.consolidateScene(principalOf(context), request.sceneId) });
    },
    async createKey(request, context) {
      const created = await facade.createKey(principalOf(context), parseInput(createKeyInputSchema, fieldsOf(CreateKeyRequestSchema, request)));
      return messageOf(CreateKeyResponseSchema, { info: created, key: created.key });
    },
    async listKeys(_request, context) {
      return messageOf(ListKeysResponseSchema, { keys: await facade.listKeys(principalOf(context)) });
    },
    async revokeKey(request, context) {
      await facade.revokeKey(principalOf(context), request.keyId);
      return messageOf(RevokeKeyResponseSchema, {});
    },
    async purgeProject(request, context) {
      const input = parseInput(purgeProjectInputSchema, fieldsOf(PurgeProjectRequestSchema, request));
      return messageOf(PurgeProjectResponseSchema, await facade.purgeProject(principalOf(context), input));
    },
    ...sourceRpcs(facade),
    ...relationRpcs(facade),
    ...feedbackRpcs(facade),
    ...erasureRpcs(facade),
  };
}
