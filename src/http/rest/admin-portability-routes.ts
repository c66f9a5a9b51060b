/**
 * `GET /v1/admin/export` and `POST /v1/admin/import`: the admin export and import of the caller's
 * tenant (docs/export-format.md). Streams, not JSON bodies: the export is written as the facade
 * reads it (application/x-ndjson), and the import's body is handed to the facade unread: it checks
 * the credential's role and scope first, then spools the body to a bounded private temporary file,
 * so a refused request reads nothing and neither is held in memory. A refusal closes the
 * connection, so a client still sending is not read further. The import route alone takes bodies
 * up to IMPORT_BODY_LIMIT_BYTES (the server's JSON limit stays as configured).
 */
import type { FastifyInstance } from 'fastify';
import { Readable } from 'node:stream';
import type { ErrorCode } from '../../core/errors.js';
import { importSummarySchema } from '../../core/export-format.js';
import { exportTenantInputSchema, importTenantInputSchema } from '../../core/schemas.js';
import { IMPORT_MAX_BYTES } from '../../service/index.js';
import type { MemoryFacade } from '../../service/memory-facade.js';
import { authenticateRequest } from '../request-authentication.js';
import type { RawRestOperation } from '../openapi-document.js';
import { coerceQuery, parseRequestPart, queryScalarKinds } from './request-validation.js';

/** The most an import request may carry (the facade's limit; the spool's bounds may be lower). */
export const IMPORT_BODY_LIMIT_BYTES = IMPORT_MAX_BYTES;
const NDJSON = 'application/x-ndjson';
const IMPORT_CONTENT_TYPES = [NDJSON, 'application/json', 'application/octet-stream'];
const IMPORT_ERRORS: readonly ErrorCode[] = ['CONFLICT', 'TOO_LARGE', 'RATE_LIMITED'];

export const PORTABILITY_OPERATIONS: readonly RawRestOperation[] = [
  {
    method: 'GET',
    url: '/v1/admin/export',
    operationId: 'exportTenant',
    summary: 'Your tenant (or one project of it) as export-format JSON Lines: header, tenants, key hashes, scenes, sessions, cells, beacons, inbox positions, waiting diffs, end',
    tag: 'admin',
    query: exportTenantInputSchema,
    success: { status: 200, description: 'The export, streamed; a response without its end line was cut short', contentType: NDJSON },
    errors: [],
  },
  {
    method: 'POST',
    url: '/v1/admin/import',
    operationId: 'importTenant',
    summary: "Import an export of your tenant, the reference memory server's JSONL file or mem0's memories: the whole body is checked, then written in one transaction; importing it again adds nothing",
    tag: 'admin',
    query: importTenantInputSchema,
    requestBody: { contentTypes: IMPORT_CONTENT_TYPES, description: `The file, as it is (at most ${IMPORT_BODY_LIMIT_BYTES} bytes)` },
    success: { status: 200, description: 'What the file held and what the import added', contentType: 'application/json', schema: importSummarySchema },
    errors: IMPORT_ERRORS,
  },
];

export function registerPortabilityRoutes(app: FastifyInstance, facade: MemoryFacade): void {
  const exportKinds = queryScalarKinds(exportTenantInputSchema);
  app.get('/v1/admin/export', async (request, reply) => {
    const principal = await authenticateRequest(facade, request);
    const input = parseRequestPart(exportTenantInputSchema, 'query', coerceQuery(request.query, exportKinds));
    const lines = await facade.exportTenant(principal, input);
    return reply
      .type(NDJSON)
      .header('content-disposition', `attachment; filename="hyphae-export.jsonl"`)
      .send(Readable.from(lines));
  });

  // Uploads under way, stopped when the server closes so that their spooled files go with them.
  const uploads = new Set<Readable>();
  app.addHook('preClose', async () => {
    for (const upload of uploads) upload.destroy();
  });
  // Its own scope, so that only this route takes any body as a stream (and no other parser runs).
  void app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    scope.post('/v1/admin/import', { bodyLimit: IMPORT_BODY_LIMIT_BYTES }, async (request, reply) => {
      // A request without a body (or an empty one) reaches no parser: it imports nothing, clearly.
      const stream = request.body instanceof Readable ? request.body : Readable.from([]);
      uploads.add(stream);
      try {
        const principal = await authenticateRequest(facade, request);
        const input = parseRequestPart(importTenantInputSchema, 'query', request.query ?? {});
        const body = { name: 'the request body', stream, declaredBytes: declaredLength(request.headers['content-length']) };
        return reply.code(200).send(await facade.importTenant(principal, body, input));
      } catch (error) {
        // Whatever of the body is still coming is not read: the connection ends with the answer.
        if (!stream.readableEnded) reply.header('connection', 'close');
        throw error;
      } finally {
        uploads.delete(stream);
      }
    });
  });
}

function declaredLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header)) return undefined;
  return Number(header);
}
