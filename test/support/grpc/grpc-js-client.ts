/**
 * A real @grpc/grpc-js client built from proto/ by @grpc/proto-loader, as a service written in any
 * language would build one from the same schema: promisified unary calls, server streams, and the
 * Hyphae error detail decoded from `grpc-status-details-bin`.
 */
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import { fileURLToPath } from 'node:url';

export const PROTO_ROOT = fileURLToPath(new URL('../../../proto', import.meta.url));

const LOADER_OPTIONS: protoLoader.Options = { keepCase: true, longs: Number, enums: String, defaults: false, arrays: true, oneofs: true, includeDirs: [PROTO_ROOT] };

type UnaryMethod = (request: object, metadata: grpc.Metadata, options: grpc.CallOptions, done: (error: grpc.ServiceError | null, reply: unknown) => void) => grpc.ClientUnaryCall;
type StreamMethod = (request: object, metadata: grpc.Metadata, options?: grpc.CallOptions) => grpc.ClientReadableStream<unknown>;

type ServiceConstructor = new (address: string, credentials: grpc.ChannelCredentials) => grpc.Client;

function serviceConstructor(file: string, path: readonly string[]): ServiceConstructor {
  let node: unknown = grpc.loadPackageDefinition(protoLoader.loadSync(file, LOADER_OPTIONS));
  for (const part of path) node = (node as Record<string, unknown>)[part];
  return node as ServiceConstructor;
}

export interface GrpcJsClient {
  readonly raw: grpc.Client;
  /** Calls a unary RPC by its proto name (`Store`, `GetCell`, …) with the given key (none when undefined). */
  unary<T = Record<string, unknown>>(method: string, request: object, key: string | undefined, options?: grpc.CallOptions): Promise<T>;
  stream(method: string, request: object, key: string | undefined, options?: grpc.CallOptions): grpc.ClientReadableStream<unknown>;
  close(): void;
}

function metadataFor(key: string | undefined): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (key !== undefined) metadata.set('x-hyphae-key', key);
  return metadata;
}

export function grpcJsClient(address: string, file = 'hyphae/v1/memory.proto', path: readonly string[] = ['hyphae', 'v1', 'MemoryService']): GrpcJsClient {
  const Client = serviceConstructor(`${PROTO_ROOT}/${file}`, path);
  const raw = new Client(address, grpc.credentials.createInsecure());
  const method = (name: string): unknown => {
    // proto-loader names methods by their proto name.
    const fn = (raw as unknown as Record<string, unknown>)[name];
    if (typeof fn !== 'function') throw new Error(`no method ${name}`);
    return fn.bind(raw);
  };
  return {
    raw,
    unary<T>(name: string, request: object, key: string | undefined, options: grpc.CallOptions = {}): Promise<T> {
      return new Promise((resolve, reject) => {
        (method(name) as UnaryMethod)(request, metadataFor(key), options, (error, reply) => (error === null ? resolve(reply as T) : reject(error)));
      });
    },
    stream(name, request, key, options): grpc.ClientReadableStream<unknown> {
      return (method(name) as StreamMethod)(request, metadataFor(key), options);
    },
    close: () => raw.close(),
  };
}

const STATUS_PROTO = `
syntax = "proto3";
package google.rpc;
message Any { string type_url = 1; bytes value = 2; }
message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
`;

export interface HyphaeErrorDetail {
  readonly code: string;
  readonly issues: readonly { path: string; message: string }[];
  readonly details: Record<string, unknown>;
}

/** The hyphae.v1.ErrorDetail inside a grpc-js error's `grpc-status-details-bin` trailer. */
export function errorDetailOf(error: grpc.ServiceError): HyphaeErrorDetail {
  const [bytes] = error.metadata.get('grpc-status-details-bin');
  if (!(bytes instanceof Buffer)) throw new Error(`no status details on ${error.message}`);
  const status = protobuf.parse(STATUS_PROTO, { keepCase: true }).root.lookupType('google.rpc.Status');
  const decoded = status.decode(bytes) as unknown as { details: { type_url: string; value: Uint8Array }[] };
  const detail = decoded.details.find((d) => d.type_url.endsWith('/hyphae.v1.ErrorDetail'));
  if (detail === undefined) throw new Error('no hyphae.v1.ErrorDetail');
  const root = new protobuf.Root().loadSync(`${PROTO_ROOT}/hyphae/v1/errors.proto`, { keepCase: true });
  const type = root.lookupType('hyphae.v1.ErrorDetail');
  const object = type.toObject(type.decode(detail.value), { defaults: true, arrays: true, objects: true }) as {
    code: string;
    issues: { path: string; message: string }[];
    details?: { fields?: Record<string, unknown> };
  };
  return { code: object.code, issues: object.issues, details: object.details?.fields ?? {} };
}

/** The error a call fails with; throws when the call succeeds. */
export async function failure(promise: Promise<unknown>): Promise<grpc.ServiceError> {
  try {
    await promise;
  } catch (error) {
    return error as grpc.ServiceError;
  }
  throw new Error('the call succeeded');
}

export { grpc };
