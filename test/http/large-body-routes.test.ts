/**
 * Routes that take bodies larger than the server's JSON limit (docs/rest.md) read none of it for a
 * caller who may not run them: `POST /v1/sources` (40 MiB) answers a reader key and an unknown key
 * from the headers while the client is still sending, and closes the connection; a writer's body
 * is read and ingested as before. (`POST /v1/admin/import`: test/portability/import-spool.test.ts.)
 */
import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshTenant } from '../support/facade-expectations.js';
import { createHttpTestApp, type HttpTestApp } from '../support/http/http-test-app.js';

interface Answer {
  readonly status: number;
  readonly connection: string | undefined;
  readonly code: string | undefined;
}

/** Declares a 30 MB JSON body, sends 64 KiB of it and never ends it: the answer must come from the headers. */
function partialUpload(port: number, path: string, key: string): Promise<Answer> {
  const req = request({ host: '127.0.0.1', port, method: 'POST', path, headers: { 'x-hyphae-key': key, 'content-type': 'application/json', 'content-length': String(30 * 1024 * 1024) } });
  req.on('error', () => undefined);
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on('response', (response) => {
      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        req.destroy();
        resolve({ status: response.statusCode ?? 0, connection: response.headers.connection, code: (JSON.parse(text) as { error?: { code: string } }).error?.code });
      });
      response.on('error', reject);
    });
  });
  req.write(`{"title":"big","text":"${' '.repeat(64 * 1024)}`);
  return answer;
}

describe('large-body routes refuse from the headers', { timeout: 60_000 }, () => {
  let t: HttpTestApp;
  let port: number;
  let readerKey: string;
  let writerKey: string;

  beforeAll(async () => {
    t = await createHttpTestApp();
    await t.app.listen({ host: '127.0.0.1', port: 0 });
    port = (t.app.server.address() as AddressInfo).port;
    const tenant = freshTenant('large');
    readerKey = (await t.runtime.mintKey({ tenant, agent: 'reader', roles: ['reader'] })).key;
    writerKey = (await t.runtime.mintKey({ tenant, agent: 'writer', roles: ['writer'] })).key;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('answers a reader key 403 and an unknown key 401 before the body is sent, closing the connection', async () => {
    expect(await partialUpload(port, '/v1/sources', readerKey)).toEqual({ status: 403, connection: 'close', code: 'FORBIDDEN' });
    expect(await partialUpload(port, '/v1/sources', 'hy_not-a-real-key-at-all')).toEqual({ status: 401, connection: 'close', code: 'UNAUTHENTICATED' });
  });

  it("still reads a writer's body", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/sources',
      headers: { 'x-hyphae-key': writerKey, 'content-type': 'application/json' },
      payload: { title: 'runbook', text: 'Restart the ingest worker before the nightly backup.' },
    });
    expect(response.statusCode, response.body).toBe(201);
  });
});
