/**
 * The product as the README tells users to run A2A: `HYPHAE_A2A=1 hyphae serve` spawned with no
 * other setting (embedded PGlite, the default embedder), its admin key from the first start's
 * banner, and the A2A SDK's client discovering it from the agent card: remember, then recall.
 */
import type { Message } from '@a2a-js/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import type { MemoryNode, RecallResult } from '../../src/core/entities.js';
import { startServer, type RunningServer } from '../support/cli-process.js';
import { a2aClient, data, sendRequest, text, userMessage } from '../support/a2a-server.js';
import { ANSWER, KEY_PATTERN, QUESTION, userEnv, workFolder, type WorkFolder } from '../support/product-fixtures.js';

function dataOf(message: Message): unknown {
  const part = message.parts.find((p) => p.content?.$case === 'data');
  return part?.content?.$case === 'data' ? part.content.value : undefined;
}

describe('HYPHAE_A2A=1 hyphae serve', { timeout: 300_000 }, () => {
  let folder: WorkFolder;
  let server: RunningServer | undefined;

  beforeAll(async () => {
    folder = await workFolder();
    server = await startServer(['--port', '0'], userEnv({ HYPHAE_A2A: '1', HYPHAE_DATA_DIR: join(folder.dir, 'data') }));
  });

  afterAll(async () => {
    await server?.stop();
    await folder?.remove();
  });

  it('serves the agent card and remembers and recalls through the SDK client', async () => {
    const key = KEY_PATTERN.exec(server?.stdout() ?? '')?.[0] ?? '';
    expect(key).not.toBe('');
    const client = await a2aClient(server?.url ?? '', key);
    const card = await client.getAgentCard();
    expect(card.supportedInterfaces[0]?.url).toBe(`${server?.url}/a2a`);

    const stored = (await client.sendMessage(sendRequest(userMessage([text(ANSWER)], { skill: 'remember' })))) as Message;
    const node = dataOf(stored) as MemoryNode;
    expect(node).toMatchObject({ content: ANSWER, cell_type: 'Fact' });
    const recalled = (await client.sendMessage(sendRequest(userMessage([data({ skill: 'recall', query: QUESTION, k: 3 })])))) as Message;
    expect((dataOf(recalled) as RecallResult).results[0]?.node_id).toBe(node.node_id);
  });
});
