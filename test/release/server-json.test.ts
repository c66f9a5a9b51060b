// server.json, the MCP registry's entry for Hyphae, against the registry's own schema (vendored:
// test/release/mcp-registry/, CI has no network) and against the repository: its name is
// package.json's mcpName, and every version it states is package.json's version.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ErrorObject } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { packageVersion, readRepoFile, repoRoot } from '../support/release-sources.js';

const SCHEMA_PATH = join(repoRoot, 'test', 'release', 'mcp-registry', 'server.schema.json');
const SCHEMA_SHA256 = '3fba09590c99f61735d234822279f4223fab9e300c0a81e81c91ab62a4114de0';
const SCHEMA_URL = 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json';

interface ServerEntry {
  $schema: string;
  name: string;
  description: string;
  version: string;
  packages: Array<{ registryType: string; identifier: string; version?: string; transport: { type: string } }>;
  remotes: Array<{ type: string; url: string; headers?: Array<{ name: string; isSecret?: boolean; isRequired?: boolean }> }>;
}

const schemaBytes = readFileSync(SCHEMA_PATH);
const ajv = new Ajv({ strict: false, allErrors: true });
ajvFormats.default(ajv);
const validate = ajv.compile(JSON.parse(schemaBytes.toString('utf8')) as object);

function schemaErrors(entry: unknown): string[] {
  return validate(entry) ? [] : (validate.errors ?? []).map((e: ErrorObject) => `${e.instancePath || '/'} ${e.message ?? ''}`);
}

const entry = JSON.parse(readRepoFile('server.json')) as ServerEntry;
const pkg = JSON.parse(readRepoFile('package.json')) as { name: string; mcpName?: string };

describe('server.json (the MCP registry entry)', () => {
  it('is checked against the published 2025-12-11 schema, unedited', () => {
    expect(createHash('sha256').update(schemaBytes).digest('hex')).toBe(SCHEMA_SHA256);
    expect(entry.$schema).toBe(SCHEMA_URL);
  });

  it('is valid against the registry schema', () => {
    expect(schemaErrors(entry)).toEqual([]);
  });

  it('would be refused by the schema with a version range, a long description or a nameless remote header', () => {
    const copy = (): ServerEntry => JSON.parse(JSON.stringify(entry)) as ServerEntry;
    const latest = copy();
    (latest.packages[0] as { version?: string }).version = 'latest';
    expect(schemaErrors(latest).length).toBeGreaterThan(0);
    const wordy = copy();
    wordy.description = 'x'.repeat(101);
    expect(schemaErrors(wordy)).toContain('/description must NOT have more than 100 characters');
    const badName = copy();
    badName.name = 'hyphae';
    expect(schemaErrors(badName).length).toBeGreaterThan(0);
  });

  it("names the npm package and the image this repository publishes, at package.json's version", () => {
    const version = packageVersion();
    expect(entry.name).toBe(pkg.mcpName);
    expect(entry.version).toBe(version);
    const npm = entry.packages.find((p) => p.registryType === 'npm');
    expect(npm).toMatchObject({ identifier: pkg.name, version, transport: { type: 'stdio' } });
    const image = (parse(readRepoFile('charts/hyphae/values.yaml')) as { image: { repository: string } }).image.repository;
    expect(entry.packages.find((p) => p.registryType === 'oci')?.identifier).toBe(`${image}:${version}`);
    // The registry proves ownership through package.json's mcpName (npm) and this label (the image).
    expect(readRepoFile('Dockerfile')).toContain(`LABEL io.modelcontextprotocol.server.name="${entry.name}"`);
  });

  it('offers the Streamable HTTP endpoint with the key header, secret and required', () => {
    const [remote] = entry.remotes;
    expect(remote?.type).toBe('streamable-http');
    expect(remote?.url).toMatch(/\/mcp$/);
    expect(remote?.headers).toEqual([expect.objectContaining({ name: 'x-hyphae-key', isSecret: true, isRequired: true })]);
  });
});
