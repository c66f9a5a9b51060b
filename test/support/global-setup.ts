import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { buildTestTemplates } from './template-db.js';

// One initdb + migration per test run: every test database is a clone of these dumps.
export async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-test-templates-'));
  project.provide('hyphaeTestTemplates', await buildTestTemplates(dir));
  return async (): Promise<void> => {
    await rm(dir, { recursive: true, force: true });
  };
}
