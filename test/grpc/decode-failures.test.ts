/**
 * A request message that does not decode is the caller's fault on every protocol the gRPC port
 * serves: INVALID_ARGUMENT with the Hyphae detail, as the native gRPC path answers (see
 * grpc-js-memory-service.test.ts), never INTERNAL. The bodies go out over raw HTTP/2, as a broken
 * client would send them; the answers are read with Connect-RPC's own protocol parsers.
 */
import { Code, ConnectError } from '@connectrpc/connect';
import { codeToHttpStatus, endStreamFlag, endStreamFromJson, errorFromJsonBytes } from '@connectrpc/connect/protocol-connect';
import { findTrailerError } from '@connectrpc/connect/protocol-grpc';
import { trailerFlag, trailerParse } from '@connectrpc/connect/protocol-grpc-web';
import { connect } from 'node:http2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import type { Embedder } from '../../src/embed/embedder.js';
import { ErrorDetailSchema } from '../../src/grpc/gen/hyphae/v1/errors_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

interface RawAnswer {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Buffer;
}

// Field 1 (content, a string) announces 2^32-1 bytes that never come; for WatchDiffs, field 1 (an int64) a varint cut short.
const UNDECODABLE_STORE = Buffer.from([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f]);
const UNDECODABLE_WATCH = Buffer.from([0x08, 0xff]);

function envelope(flags: number, data: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(flags, 0);
  head.writeUInt32BE(data.byteLength, 1);
  return Buffer.concat([head, data]);
}

/** The envelopes of a streamed answer, in order. */
function envelopes(body: Buffer): { flags: number; data: Buffer }[] {
  const found: { flags: number; data: Buffer }[] = [];
  for (let at = 0; at < body.byteLength; at += 5 + body.readUInt32BE(at + 1)) {
    found.push({ flags: body.readUInt8(at), data: body.subarray(at + 5, at + 5 + body.readUInt32BE(at + 1)) });
  }
  return found;
}

/** The one envelope an answer to an undecodable request holds: the status, no message before it. */
function soleEnvelope(body: Buffer): { flags: number; data: Buffer } {
  const [only, ...more] = envelopes(body);
  expect(more).toEqual([]);
  return only ?? { flags: -1, data: Buffer.alloc(0) };
}

function expectHyphaeInvalidArgument(error: ConnectError | undefined, issue: RegExp): void {
  expect(error?.code).toBe(Code.InvalidArgument);
  expect(error?.rawMessage).toBe('the request message cannot be decoded');
  const [detail] = error?.findDetails(ErrorDetailSchema) ?? [];
  expect(detail?.code).toBe('INVALID_ARGUMENT');
  expect(detail?.issues.map((i) => i.path)).toEqual(['(message)']);
  expect(detail?.issues[0]?.message).toMatch(issue);
  expect(error?.metadata.get('x-hyphae-error-code')).toBe('INVALID_ARGUMENT');
}

describe('a request message that does not decode', () => {
  let embedder: Embedder;
  let server: GrpcReplica;
  let key = '';

  beforeAll(async () => {
    embedder = await createEmbedder({ kind: 'hash' });
    const db = await createMeshTestDb(embedder.dimension);
    server = await startGrpcReplica({ name: 'decode', db, bus: new MemoryBus(), embedder });
    key = (await createKeyAdministration(db).createKey({ tenant: 'acme', agent: 'writer' })).key;
  });

  afterAll(async () => {
    await server?.close();
    await embedder?.close();
  });

  function post(method: string, contentType: string, body: Buffer, extra: Record<string, string> = {}): Promise<RawAnswer> {
    return new Promise((resolve, reject) => {
      const session = connect(`http://${server.grpc.address}`);
      session.on('error', reject);
      const headers = { ':method': 'POST', ':path': `/hyphae.v1.MemoryService/${method}`, 'content-type': contentType, 'x-hyphae-key': key, ...extra };
      const request = session.request(contentType.startsWith('application/grpc-web') ? headers : { ...headers, 'connect-protocol-version': '1' });
      const answer = { status: 0, headers: new Headers() };
      request.on('response', (fields) => {
        answer.status = Number(fields[':status']);
        for (const [name, value] of Object.entries(fields)) if (!name.startsWith(':') && value !== undefined) answer.headers.set(name, String(value));
      });
      request.on('trailers', (fields) => {
        for (const [name, value] of Object.entries(fields)) if (value !== undefined) answer.headers.set(name, String(value));
      });
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        session.close();
        resolve({ ...answer, body: Buffer.concat(chunks) });
      });
      request.on('error', reject);
      request.end(body);
    });
  }

  async function connectUnaryError(contentType: string, body: Buffer): Promise<ConnectError> {
    const answer = await post('Store', contentType, body);
    expect(answer.headers.get('content-type')).toBe('application/json');
    const error = errorFromJsonBytes(answer.body, answer.headers, new ConnectError('the error body did not parse', Code.Unknown));
    expect(answer.status).toBe(codeToHttpStatus(error.code));
    return error;
  }

  async function grpcWebError(method: string, contentType: string, body: Buffer, envelopeFlags = 0, extra: Record<string, string> = {}): Promise<ConnectError | undefined> {
    const answer = await post(method, contentType, envelope(envelopeFlags, body), extra);
    expect(answer.status).toBe(200);
    const { flags, data } = soleEnvelope(answer.body);
    expect(flags).toBe(trailerFlag);
    const trailer = trailerParse(data);
    const error = findTrailerError(trailer);
    trailer.forEach((value, name) => error?.metadata.set(name, value));
    return error;
  }

  it('over the Connect protocol with JSON: INVALID_ARGUMENT (HTTP 400) naming what the decoder found', async () => {
    expectHyphaeInvalidArgument(await connectUnaryError('application/json', Buffer.from('{"content": ')), /Unexpected end of JSON input/);
    expectHyphaeInvalidArgument(await connectUnaryError('application/json', Buffer.from('{"content": 5, "cellType": "Fact"}')), /StoreRequest\.content.*expected string/);
    expect(server.faults).toEqual([]);
  });

  it('over the Connect protocol with protobuf: INVALID_ARGUMENT (HTTP 400), not INTERNAL (500)', async () => {
    expectHyphaeInvalidArgument(await connectUnaryError('application/proto', UNDECODABLE_STORE), /not a valid protobuf encoding/);
    // A server stream's request over Connect: the status is in the end-of-stream message.
    const answer = await post('WatchDiffs', 'application/connect+proto', envelope(0, UNDECODABLE_WATCH));
    expect(answer.status).toBe(200);
    const { flags, data } = soleEnvelope(answer.body);
    expect(flags).toBe(endStreamFlag);
    const end = endStreamFromJson(data);
    end.metadata.forEach((value, name) => end.error?.metadata.set(name, value));
    expectHyphaeInvalidArgument(end.error, /not a valid protobuf encoding/);
    expect(server.faults).toEqual([]);
  });

  it('over gRPC-Web: INVALID_ARGUMENT in the trailer frame, for a unary call and a server stream, protobuf or JSON', async () => {
    expectHyphaeInvalidArgument(await grpcWebError('Store', 'application/grpc-web+proto', UNDECODABLE_STORE), /not a valid protobuf encoding/);
    expectHyphaeInvalidArgument(await grpcWebError('WatchDiffs', 'application/grpc-web+proto', UNDECODABLE_WATCH), /not a valid protobuf encoding/);
    expectHyphaeInvalidArgument(await grpcWebError('Store', 'application/grpc-web+json', Buffer.from('{"content": 5}')), /expected string/);
    expect(server.faults).toEqual([]);
  });

  it('a compressed message with no encoding named, or one that does not decompress: INVALID_ARGUMENT, not INTERNAL', async () => {
    const store = Buffer.from(JSON.stringify({ content: 'never read', cellType: 'Fact' }));
    expectHyphaeInvalidArgument(await grpcWebError('Store', 'application/grpc-web+json', store, 1), /compressed envelope/);
    expectHyphaeInvalidArgument(await grpcWebError('Store', 'application/grpc-web+json', store, 1, { 'grpc-encoding': 'br' }), /decompression failed/);
    // Native gRPC: the status in the HTTP/2 trailers.
    for (const extra of [{}, { 'grpc-encoding': 'br' }] as Record<string, string>[]) {
      const answer = await post('Store', 'application/grpc+json', envelope(1, store), extra);
      const error = findTrailerError(answer.headers);
      answer.headers.forEach((value, name) => error?.metadata.set(name, value));
      expectHyphaeInvalidArgument(error, /compressed envelope|decompression failed/);
    }
    expect(server.faults).toEqual([]);
  });

  it('leaves a decodable request alone: a store over each protocol still succeeds', async () => {
    const store = Buffer.from(JSON.stringify({ content: 'decodes fine', cellType: 'Fact' }));
    const connectJson = await post('Store', 'application/json', store);
    expect(connectJson.status).toBe(200);
    expect(JSON.parse(connectJson.body.toString('utf8'))).toMatchObject({ node: { content: 'decodes fine' } });
    const grpcWeb = envelopes((await post('Store', 'application/grpc-web+json', envelope(0, store))).body);
    expect(grpcWeb.map((e) => e.flags)).toEqual([0, trailerFlag]);
    expect(JSON.parse(grpcWeb[0]?.data.toString('utf8') ?? '')).toMatchObject({ node: { content: 'decodes fine' } });
    expect(trailerParse(grpcWeb[1]?.data ?? new Uint8Array()).get('grpc-status')).toBe('0');
  });
});
