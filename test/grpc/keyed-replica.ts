/** A gRPC replica on a fresh mesh database with three keys — a writer and a reader of tenant acme, a writer of globex — and how a refused call failed. */
import { ConnectError, type Code } from '@connectrpc/connect';
import { createKeyAdministration } from '../../src/auth/key-administration.js';
import { createEmbedder } from '../../src/embed/create-embedder.js';
import { ErrorDetailSchema } from '../../src/grpc/gen/hyphae/v1/errors_pb.js';
import { MemoryBus } from '../../src/mesh/memory-bus.js';
import { createMeshTestDb } from '../support/mesh/mesh-test-db.js';
import { startGrpcReplica, type GrpcReplica } from './grpc-replica.js';

export interface KeyedReplica {
  readonly server: GrpcReplica;
  readonly writerKey: string;
  readonly readerKey: string;
  /** A writer of another tenant. */
  readonly otherKey: string;
  close(): Promise<void>;
}

export async function startKeyedReplica(name: string): Promise<KeyedReplica> {
  const embedder = await createEmbedder({ kind: 'hash' });
  const db = await createMeshTestDb(embedder.dimension);
  const server = await startGrpcReplica({ name, db, bus: new MemoryBus(), embedder });
  const admin = createKeyAdministration(db);
  return {
    server,
    writerKey: (await admin.createKey({ tenant: 'acme', agent: 'writer' })).key,
    readerKey: (await admin.createKey({ tenant: 'acme', agent: 'reader', roles: ['reader'] })).key,
    otherKey: (await admin.createKey({ tenant: 'globex', agent: 'writer' })).key,
    async close(): Promise<void> {
      await server.close();
      await embedder.close();
    },
  };
}

export interface CallFailure {
  readonly status: Code;
  readonly message: string;
  readonly code: string | undefined;
  readonly paths: string[];
  readonly issues: { path: string; message: string }[];
}

/** How the call failed: its status, message and the error detail's code and issues; throws when it succeeded. */
export async function failure(promise: Promise<unknown>): Promise<CallFailure> {
  try {
    await promise;
  } catch (error) {
    const failed = ConnectError.from(error);
    const issues = failed.findDetails(ErrorDetailSchema)[0]?.issues.map((i) => ({ path: i.path, message: i.message })) ?? [];
    return { status: failed.code, message: failed.rawMessage, code: failed.findDetails(ErrorDetailSchema)[0]?.code, paths: issues.map((i) => i.path), issues };
  }
  throw new Error('the call succeeded');
}
