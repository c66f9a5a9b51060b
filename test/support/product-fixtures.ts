/**
 * The product tier's common ground: the user's environment (no HYPHAE_* setting, so every default
 * applies, the embedder included), a fresh working folder per run (the data lands in its
 * ./.hyphae, as it does for a user), and a paraphrase any sentence-embedding model resolves.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { expect } from 'vitest';

/** Unrelated memories; the question shares almost no word with its answer (feature hashing ranks it wrong). */
export const MEMORIES = [
  'Sessions are kept in PostgreSQL, not Redis.',
  'The deploy pipeline ships to production every night at 2am.',
  'Invoices are emailed to customers as PDF attachments.',
  'The office dog is called Biscuit.',
] as const;
export const QUESTION = 'how do clients receive their bills?';
export const ANSWER = 'Invoices are emailed to customers as PDF attachments.';

export const KEY_PATTERN = /hy_[A-Za-z0-9_-]{20,}/;

/** The user's shell: everything but HYPHAE_* settings. */
export function userEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) if (!key.startsWith('HYPHAE_') && value !== undefined) env[key] = value;
  return { ...env, ...extra };
}

export interface WorkFolder {
  readonly dir: string;
  remove(): Promise<void>;
}

export async function workFolder(): Promise<WorkFolder> {
  const dir = await mkdtemp(join(tmpdir(), 'hyphae-product-'));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Stores every memory over REST; returns the answer's node id. */
export async function storeOverRest(url: string, key: string): Promise<string> {
  const ids: string[] = [];
  for (const content of MEMORIES) {
    const response = await fetch(`${url}/v1/cells`, {
      method: 'POST',
      headers: { 'x-hyphae-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ content, cell_type: 'Fact' }),
    });
    const body = (await response.json()) as { node_id?: string };
    expect(response.status, JSON.stringify(body)).toBe(201);
    ids.push(body.node_id ?? '');
  }
  return ids[MEMORIES.indexOf(ANSWER)] ?? '';
}

/** The node id REST recall ranks first for the question. */
export async function recallOverRest(url: string, key: string): Promise<string | undefined> {
  const response = await fetch(`${url}/v1/recall`, {
    method: 'POST',
    headers: { 'x-hyphae-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ query: QUESTION, k: 3 }),
  });
  const body = (await response.json()) as { results: { node: { node_id: string } }[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body.results[0]?.node.node_id;
}

/** Stores every memory with the MCP `store` tool; returns the answer's node id. */
export async function storeOverMcp(client: Client): Promise<string> {
  const ids: string[] = [];
  for (const content of MEMORIES) {
    const result = await client.callTool({ name: 'store', arguments: { content, cell_type: 'Fact' } });
    expect(result.isError, JSON.stringify(result)).toBe(false);
    ids.push((result.structuredContent as { node_id: string }).node_id);
  }
  return ids[MEMORIES.indexOf(ANSWER)] ?? '';
}

/** The node id the MCP `recall` tool ranks first for the question. */
export async function recallOverMcp(client: Client): Promise<string | undefined> {
  const result = await client.callTool({ name: 'recall', arguments: { query: QUESTION, k: 3 } });
  expect(result.isError, JSON.stringify(result)).toBe(false);
  return (result.structuredContent as { results: { node_id: string }[] }).results[0]?.node_id;
}

/** Embeds the question and the memories with a worker's OpenAI-compatible endpoint; the memory nearest the question and the vectors' length. */
export async function nearestOverEmbeddings(url: string): Promise<{ nearest: string | undefined; dimension: number }> {
  const response = await fetch(`${url}/v1/embeddings`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ input: [QUESTION, ...MEMORIES] }),
  });
  const body = (await response.json()) as { data: { index: number; embedding: number[] }[] };
  expect(response.status, JSON.stringify(body).slice(0, 300)).toBe(200);
  const [question, ...memories] = [...body.data].sort((a, b) => a.index - b.index).map((d) => d.embedding) as [number[], ...number[][]];
  const similarity = memories.map((m) => m.reduce((sum, value, i) => sum + value * (question[i] ?? 0), 0));
  return { nearest: MEMORIES[similarity.indexOf(Math.max(...similarity))], dimension: question.length };
}
