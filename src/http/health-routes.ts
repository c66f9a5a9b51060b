/**
 * Liveness (`/healthz`: the process answers; no I/O) and readiness (`/readyz`: every named
 * probe — database, bus… — resolves within the timeout, else 503 naming the failing checks).
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { ReadinessCheck } from '../core/readiness.js';
import type { PlainOperation } from './openapi-document.js';


const CHECK_STATES = ['ok', 'failing', 'timeout'] as const;
type CheckState = (typeof CHECK_STATES)[number];

export const healthSchema = z.strictObject({ status: z.literal('ok'), version: z.string() });
export const readinessSchema = z.strictObject({
  status: z.enum(['ready', 'unready']),
  checks: z.record(z.string(), z.enum(CHECK_STATES)),
  failing: z.array(z.string()),
});

export const HEALTH_OPERATIONS: readonly PlainOperation[] = [
  {
    method: 'GET',
    url: '/healthz',
    operationId: 'liveness',
    summary: 'Liveness: the process is up',
    tag: 'operations',
    responses: { 200: { description: 'Alive', schema: healthSchema } },
  },
  {
    method: 'GET',
    url: '/readyz',
    operationId: 'readiness',
    summary: 'Readiness: the database (and the bus, when one is configured) is reachable',
    tag: 'operations',
    responses: {
      200: { description: 'Ready', schema: readinessSchema },
      503: { description: 'Not ready; `failing` names the checks', schema: readinessSchema },
    },
  },
];

async function runProbe(probe: ReadinessCheck, timeoutMs: number): Promise<CheckState> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<CheckState>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), timeoutMs);
  });
  try {
    return await Promise.race([probe.check().then((): CheckState => 'ok'), timeout]);
  } catch {
    return 'failing';
  } finally {
    clearTimeout(timer);
  }
}

export function registerHealthRoutes(
  app: FastifyInstance,
  options: { readonly version: string; readonly probes: readonly ReadinessCheck[]; readonly timeoutMs: number },
): void {
  app.get('/healthz', async () => ({ status: 'ok', version: options.version }));
  // The liveness path HydraDB's MCP server documents, for probes and clients written against it.
  app.get('/health', async () => ({ status: 'ok', version: options.version }));

  app.get('/readyz', async (request, reply) => {
    const states = await Promise.all(options.probes.map((probe) => runProbe(probe, options.timeoutMs)));
    const checks: Record<string, CheckState> = {};
    options.probes.forEach((probe, index) => {
      checks[probe.name] = states[index] ?? 'failing';
    });
    const failing = Object.entries(checks)
      .filter(([, state]) => state !== 'ok')
      .map(([name]) => name);
    if (failing.length > 0) request.log.warn({ failing }, 'readiness check failed');
    return reply.code(failing.length === 0 ? 200 : 503).send({ status: failing.length === 0 ? 'ready' : 'unready', checks, failing });
  });
}
