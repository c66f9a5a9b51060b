/**
 * The REST import's body and the disk (docs/export-format.md, "Over REST"), on a real socket: a key
 * that may not import is refused from its headers while its upload is still being sent, and
 * nothing reaches the spool folder; spooled bodies are bounded per tenant and in all (RATE_LIMITED
 * with a stable `details.limit`, or TOO_LARGE for a body that could never fit); an aborted upload
 * and a server closing under one leave no file behind.
 */
import { request, type ClientRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';
import { freshTenant } from '../support/facade-expectations.js';

const KIB = 1024;

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly body: { error?: { code: string; message: string; details?: Record<string, unknown> } };
}

interface Upload {
  readonly request: ClientRequest;
  /** Settles with the answer, which may come while the body is still being sent. */
  readonly answer: Promise<Answer>;
  /** Sends this many more bytes of the body (never its end). */
  send(bytes: number): Promise<void>;
}

/** Starts `POST /v1/admin/import` declaring `declaredBytes`, without sending any of the body yet. */
function startUpload(port: number, key: string, declaredBytes: number | undefined): Upload {
  const headers: Record<string, string> = { 'x-hyphae-key': key, 'content-type': 'application/x-ndjson' };
  if (declaredBytes !== undefined) headers['content-length'] = String(declaredBytes);
  const req = request({ host: '127.0.0.1', port, method: 'POST', path: '/v1/admin/import', headers });
  // Writes after the server has closed the connection fail; the answer is what is checked.
  req.on('error', () => undefined);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, body: JSON.parse(text) as Answer['body'] }));
      response.on('error', reject);
    });
  });
  req.flushHeaders();
  return {
    request: req,
    answer,
    send: (bytes) => new Promise<void>((resolve) => req.write(Buffer.alloc(bytes, 0x20), () => resolve())),
  };
}

/** Waits until the spool folder holds `count` uploads (bounded: a stuck state fails the test). */
async function spooledUploads(dir: string, count: number): Promise<void> {
  for (let i = 0; i < 500; i++) {
    if ((await readdir(dir)).length === count) return;
    await sleep(10);
  }
  expect(await readdir(dir)).toHaveLength(count);
}

describe('the import body and the disk', { timeout: 60_000 }, () => {
  let spoolDir: string;
  let server: HttpTestApp;
  let port: number;
  let tenant: string;
  let adminKey: string;
  let readerKey: string;
  let otherAdminKey: string;

  beforeAll(async () => {
    spoolDir = await mkdtemp(join(tmpdir(), 'hyphae-spool-test-'));
    server = await createHttpTestApp({
      runtime: { facade: { importSpoolDir: spoolDir, maxImportSpoolBytesPerTenant: 1024 * KIB, maxImportSpoolBytes: 1536 * KIB } },
    });
    await server.app.listen({ host: '127.0.0.1', port: 0 });
    port = (server.app.server.address() as AddressInfo).port;
    tenant = freshTenant('spool');
    adminKey = (await server.runtime.mintKey({ tenant, agent: 'admin', roles: ['admin'] })).key;
    readerKey = (await server.runtime.mintKey({ tenant, agent: 'reader', roles: ['reader'] })).key;
    otherAdminKey = (await server.runtime.mintKey({ tenant: freshTenant('spool-other'), agent: 'admin', roles: ['admin'] })).key;
  });
  afterAll(async () => {
    await server?.close();
    await rm(spoolDir, { recursive: true, force: true });
  });

  it("refuses a reader key's 30 MB import from its headers, while the body is still being sent, and spools none of it", async () => {
    const upload = startUpload(port, readerKey, 30 * 1024 * KIB);
    await upload.send(64 * KIB);
    // The client has sent 64 KiB of 30 MiB and not ended the request: the answer cannot wait for the body.
    const answer = await upload.answer;
    expect(answer.status).toBe(403);
    expect(answer.body.error).toMatchObject({ code: 'FORBIDDEN', details: { required_role: 'admin' } });
    expect(answer.connection).toBe('close');
    expect(await readdir(spoolDir)).toEqual([]);
    upload.request.destroy();
  });

  it('refuses at once a declared body that could never fit, and concurrent uploads past the tenant and server bounds', async () => {
    const tooBig = startUpload(port, adminKey, 2048 * KIB);
    expect(await tooBig.answer).toMatchObject({ status: 413, body: { error: { code: 'TOO_LARGE' } } });
    tooBig.request.destroy();

    const first = startUpload(port, adminKey, 800 * KIB);
    await first.send(100 * KIB);
    await spooledUploads(spoolDir, 1);

    const sameTenant = startUpload(port, adminKey, 800 * KIB);
    const refused = await sameTenant.answer;
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'import_spool_per_tenant', limit_bytes: 1024 * KIB } });
    sameTenant.request.destroy();

    const otherTenant = startUpload(port, otherAdminKey, 800 * KIB);
    expect((await otherTenant.answer).body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'import_spool_total', limit_bytes: 1536 * KIB } });
    otherTenant.request.destroy();

    // Without a declared length the reservation grows with the body and is refused when it passes the bound.
    const chunked = startUpload(port, otherAdminKey, undefined);
    await chunked.send(600 * KIB);
    await chunked.send(200 * KIB);
    expect((await chunked.answer).body.error).toMatchObject({ code: 'RATE_LIMITED', details: { limit: 'import_spool_total' } });
    chunked.request.destroy();

    // The aborted upload's file goes, and so does its share of the bounds.
    first.request.destroy();
    await spooledUploads(spoolDir, 0);
    const after = startUpload(port, adminKey, 800 * KIB);
    await after.send(800 * KIB);
    after.request.end();
    // The body is spaces, not an export: refused as a file, after it was spooled in full.
    expect((await after.answer).body.error?.code).toBe('INVALID_ARGUMENT');
    expect(await readdir(spoolDir)).toEqual([]);
  });

  it('removes the file of an upload under way when the server closes', async () => {
    const closing = await createHttpTestApp({ sharedRuntime: server.runtime });
    await closing.app.listen({ host: '127.0.0.1', port: 0 });
    const upload = startUpload((closing.app.server.address() as AddressInfo).port, adminKey, 800 * KIB);
    await upload.send(100 * KIB);
    await spooledUploads(spoolDir, 1);
    await closing.close();
    await spooledUploads(spoolDir, 0);
    upload.request.destroy();
  });
});
