/**
 * Importers from other tools: the reference MCP memory server's JSONL file (written here by the
 * real @modelcontextprotocol/server-memory, driven by the official MCP SDK client) and mem0's
 * memories as its get_all returns them (fixtures/mem0-get-all.json, shaped as mem0ai 2.2.1's
 * Memory.get_all builds them). Imported through the facade's admin import, recalled, and imported
 * again without change.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import { fileDumpSource, type ManagedMemoryFacade } from '../../src/service/index.js';
import { expectCode, freshTenant } from '../support/facade-expectations.js';
import { createTestRuntime, type TestRuntime } from '../support/test-runtime.js';

const REFERENCE_SERVER = fileURLToPath(new URL('../../node_modules/@modelcontextprotocol/server-memory/dist/index.js', import.meta.url));
const MEM0_FIXTURE = fileURLToPath(new URL('./fixtures/mem0-get-all.json', import.meta.url));

/** Drives the reference memory server as a host would, and returns the path of the file it wrote. */
async function referenceMemoryFile(dir: string): Promise<string> {
  const path = join(dir, 'memory.jsonl');
  const client = new Client({ name: 'hyphae-import-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({ command: process.execPath, args: [REFERENCE_SERVER], env: { ...getDefaultEnvironment(), MEMORY_FILE_PATH: path }, stderr: 'ignore' }),
  );
  try {
    await client.callTool({
      name: 'create_entities',
      arguments: {
        entities: [
          { name: 'Billing_Service', entityType: 'service', observations: ['Written in Go', 'Owns the invoices table'] },
          { name: 'Invoices_DB', entityType: 'database', observations: ['Runs PostgreSQL 16 with nightly backups'] },
          { name: 'Maria', entityType: 'person', observations: [] },
        ],
      },
    });
    await client.callTool({
      name: 'create_relations',
      arguments: {
        relations: [
          { from: 'Billing_Service', to: 'Invoices_DB', relationType: 'stores data in' },
          { from: 'Maria', to: 'Billing_Service', relationType: 'is on call for' },
        ],
      },
    });
    await client.callTool({ name: 'add_observations', arguments: { observations: [{ entityName: 'Maria', contents: ['Prefers incident reviews in writing'] }] } });
  } finally {
    await client.close();
  }
  return path;
}

describe('imports from other memory tools', { timeout: 120_000 }, () => {
  let rt: TestRuntime;
  let facade: ManagedMemoryFacade;
  let dir: string;
  let admin: Principal;

  beforeAll(async () => {
    rt = await createTestRuntime();
    facade = rt.facade;
    dir = await mkdtemp(join(tmpdir(), 'hyphae-foreign-'));
    admin = await rt.principal({ tenant: freshTenant('imp'), agent: 'importer', roles: ['admin'] });
  });
  afterAll(async () => {
    await rt?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const recalled = async (principal: Principal, query: string): Promise<(string | undefined)[]> =>
    (await facade.recall(principal, { query, k: 3 }, { withNodes: true })).results.map((hit) => hit.node?.content);

  it("imports the reference memory server's file: observations become cells, relations stay in their metadata", async () => {
    const path = await referenceMemoryFile(dir);
    expect((await readFile(path, 'utf8')).split('\n')[0]).toMatch(/^\{"type":"entity","name":"Billing_Service","entityType":"service","observations":\[/);
    const summary = await facade.importTenant(admin, fileDumpSource(path), { format: 'server-memory', agent: 'claude', project: 'billing' });
    expect(summary).toMatchObject({ format: 'server-memory', version: null, vectors_from_file: false, records: { cell: { in_file: 4, added: 4 } } });

    const reader = await rt.principal({ tenant: admin.tenantId, agent: 'reader', default_project: 'billing' });
    expect(await recalled(reader, 'which database holds the invoices')).toContain('Invoices_DB (database): Runs PostgreSQL 16 with nightly backups');
    const cells = (await facade.listCells(reader, { limit: 50 })).items;
    expect(cells.map((cell) => cell.content).sort()).toEqual([
      'Billing_Service (service): Owns the invoices table',
      'Billing_Service (service): Written in Go',
      'Invoices_DB (database): Runs PostgreSQL 16 with nightly backups',
      'Maria (person): Prefers incident reviews in writing',
    ]);
    const maria = cells.find((cell) => cell.content.startsWith('Maria'));
    expect(maria).toMatchObject({ source_agent: 'claude', project: 'billing', cell_type: 'Fact' });
    expect(maria?.metadata).toEqual({
      imported_from: 'server-memory',
      entity: 'Maria',
      entity_type: 'person',
      relations: [{ from: 'Maria', relation_type: 'is on call for', to: 'Billing_Service' }],
      relation_count: 1,
    });

    const again = await facade.importTenant(admin, fileDumpSource(path), { format: 'server-memory', agent: 'claude', project: 'billing' });
    expect(again.records.cell).toEqual({ in_file: 4, added: 0 });
    expect((await facade.listCells(reader, { limit: 50 })).items).toHaveLength(4);
  });

  it("imports mem0's memories with their times, and mem0's own fields in the metadata", async () => {
    const summary = await facade.importTenant(admin, fileDumpSource(MEM0_FIXTURE), { format: 'mem0' });
    expect(summary.records.cell).toEqual({ in_file: 4, added: 4 });
    expect(await recalled(admin, 'peanuts allergy')).toContain('Is allergic to peanuts');
    const cells = (await facade.listCells(admin, { limit: 50 })).items;
    const staging = cells.find((cell) => cell.content.startsWith('The staging cluster'));
    expect(staging).toMatchObject({ source_agent: 'importer', project: 'default', created_at: '2026-03-04T08:12:44.731900Z', updated_at: '2026-03-05T10:00:01.250000Z' });
    expect(staging?.metadata).toEqual({
      imported_from: 'mem0',
      mem0: {
        id: '5d0a8c3f-7e19-4b62-a4f5-c83e21d76b90',
        hash: '9111fc14994f7078259b196ebaee7e94',
        metadata: { source: 'runbook' },
        user_id: 'alex',
        agent_id: 'ops-bot',
        role: 'assistant',
        updated_at: '2026-03-05T10:00:01.250000+00:00',
      },
    });
    expect((await facade.importTenant(admin, fileDumpSource(MEM0_FIXTURE), { format: 'mem0' })).records.cell).toEqual({ in_file: 4, added: 0 });
  });

  it('refuses a foreign import into a project outside the key, and a reader key altogether', async () => {
    const scoped = await rt.principal({ tenant: admin.tenantId, agent: 'scoped-admin', roles: ['admin'], projects: ['one'] });
    await expectCode(facade.importTenant(scoped, fileDumpSource(MEM0_FIXTURE), { format: 'mem0', project: 'two' }), 'FORBIDDEN');
    await expectCode(facade.importTenant(scoped, fileDumpSource(MEM0_FIXTURE), { format: 'hyphae' }), 'FORBIDDEN');
    const reader = await rt.principal({ tenant: admin.tenantId, agent: 'just-reading', roles: ['reader'] });
    await expectCode(facade.importTenant(reader, fileDumpSource(MEM0_FIXTURE), { format: 'mem0' }), 'FORBIDDEN');
    await expectCode(facade.exportTenant(reader, { with_vectors: false }), 'FORBIDDEN');
  });
});
