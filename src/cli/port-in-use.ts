/**
 * A port another process holds, said in one line naming the setting to change (reported without a
 * stack trace, exit code 2), instead of Node's bare EADDRINUSE.
 */
import { ConflictError } from '../core/errors.js';

/** One listening port of a command and the settings that move or drop it. */
export interface PortSetting {
  /** What listens there, e.g. "gRPC". */
  readonly surface: string;
  /** How to change it, e.g. "set HYPHAE_PORT (or --port) to another port". */
  readonly remedy: string;
}

export const HTTP_PORT: PortSetting = { surface: 'HTTP', remedy: 'set HYPHAE_PORT (or --port) to another port' };
export const GRPC_PORT: PortSetting = { surface: 'gRPC', remedy: 'set HYPHAE_GRPC_PORT (or --grpc-port) to another port, or to 0 to turn gRPC off' };
export const WORKER_HTTP_PORT: PortSetting = { surface: 'worker HTTP', remedy: 'set HYPHAE_WORKER_PORT (or --port) to another port, or --no-http' };

/** Runs `listen`; a port in use becomes a ConflictError naming `setting`, anything else passes through. */
export async function listenExplained<T>(setting: PortSetting, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen();
  } catch (error) {
    if (isAddressInUse(error)) throw new ConflictError(`port ${port} is in use (${setting.surface}) — ${setting.remedy}`, { cause: error });
    throw error;
  }
}

function isAddressInUse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EADDRINUSE';
}
