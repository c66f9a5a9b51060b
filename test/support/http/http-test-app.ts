/**
 * The HTTP app on a real test runtime (PGlite + hash embedder + the real facade), with its log
 * lines captured, and a checker of responses against the app's own OpenAPI document.
 */
import { Writable } from 'node:stream';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { buildSurfacesApp } from '../../../src/cli/serve-app.js';
import type { ReadinessCheck } from '../../../src/core/readiness.js';
import { resolveHttpConfig, type HttpConfig } from '../../../src/http/http-config.js';
import { createHyphaeMetrics, type HyphaeMetrics } from '../../../src/metrics/index.js';
import { createTestRuntime, type TestRuntime, type TestRuntimeOptions } from '../test-runtime.js';

export interface HttpTestApp {
  readonly runtime: TestRuntime;
  readonly app: FastifyInstance;
  readonly metrics: HyphaeMetrics;
  /** Every log line written so far, as raw text. */
  readonly logLines: string[];
  close(): Promise<void>;
}

export interface HttpTestAppOptions {
  readonly config?: Partial<HttpConfig>;
  readonly readiness?: readonly ReadinessCheck[];
  readonly runtime?: TestRuntimeOptions;
  /** Reuse a runtime (the caller closes it). */
  readonly sharedRuntime?: TestRuntime;
  readonly logLevel?: string;
}

export async function createHttpTestApp(options: HttpTestAppOptions = {}): Promise<HttpTestApp> {
  const runtime = options.sharedRuntime ?? (await createTestRuntime(options.runtime));
  const logLines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done): void {
      logLines.push(...chunk.toString('utf8').split('\n').filter((line) => line.length > 0));
      done();
    },
  });
  const metrics = createHyphaeMetrics();
  const { app } = await buildSurfacesApp({
    facade: runtime.facade,
    // Many tests send unknown keys on purpose; test/http/failed-auth-limit.test.ts sets its own limit.
    config: resolveHttpConfig({ failedAuthPerMinute: 1_000_000, ...options.config }),
    readiness: options.readiness ?? [{ name: 'database', check: async () => void (await runtime.db.query('SELECT 1')) }],
    metrics,
    logger: { level: options.logLevel ?? 'info', stream },
    version: '0.0.0-test',
  });
  return {
    runtime,
    app,
    metrics,
    logLines,
    async close(): Promise<void> {
      await app.close();
      if (options.sharedRuntime === undefined) await runtime.close();
    },
  };
}

type OpenApiOperation = { responses?: Record<string, { content?: Record<string, { schema?: object }> }> };

/** Validates responses against the schemas the served `/openapi.json` declares for them. */
export class OpenApiResponseChecker {
  private readonly ajv = new Ajv2020({ strict: true, allErrors: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  constructor(private readonly document: { paths: Record<string, Record<string, OpenApiOperation>>; components: { schemas: Record<string, object> } }) {
    ajvFormats.default(this.ajv);
    for (const [name, schema] of Object.entries(document.components.schemas)) this.ajv.addSchema({ ...schema, $id: `component-${name}` });
  }

  /** Throws unless the response's status is documented for the operation and its JSON body matches. */
  check(method: string, path: string, response: LightMyRequestResponse): void {
    const operation = this.document.paths[path]?.[method.toLowerCase()];
    if (operation === undefined) throw new Error(`${method} ${path} is not in the OpenAPI document`);
    const documented = operation.responses?.[String(response.statusCode)];
    if (documented === undefined) throw new Error(`${method} ${path} answered ${response.statusCode}, which is not documented`);
    const schema = documented.content?.['application/json']?.schema;
    if (schema === undefined) {
      if (response.body.length > 0) throw new Error(`${method} ${path} ${response.statusCode} documents no body but sent one`);
      return;
    }
    const key = `${method} ${path} ${response.statusCode}`;
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = this.ajv.compile(JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', '"component-')) as object);
      this.compiled.set(key, validate);
    }
    if (!validate(response.json())) {
      throw new Error(`${key} body does not match its schema: ${this.ajv.errorsText(validate.errors)}\n${response.body}`);
    }
  }
}

export type CheckedCall = (method: 'GET' | 'POST' | 'DELETE', url: string, pattern: string, key: string, body?: unknown) => Promise<LightMyRequestResponse>;

/** Calls the app with a key (and a JSON body when given) and checks the answer against the OpenAPI schema of `pattern`. */
export function checkedCaller(app: () => FastifyInstance, checker: () => OpenApiResponseChecker): CheckedCall {
  return async (method, url, pattern, key, body) => {
    const response = await app().inject({
      method,
      url,
      headers: { 'x-hyphae-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    });
    checker().check(method, pattern, response);
    return response;
  };
}
