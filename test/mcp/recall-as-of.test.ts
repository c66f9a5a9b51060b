/**
 * recall and query over MCP take as_of, as REST's bodies do (docs/mcp.md): the versions current at
 * that instant are searched, and graph_context gives the declared relations that held then.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '../../src/core/principal.js';
import type { TestRuntime } from '../support/test-runtime.js';
import type { Json } from '../support/mcp/stateless-client.js';
import { openToolCaller, type ToolCaller } from './tool-caller.js';

let tools: ToolCaller;
let runtime: TestRuntime;
let principal: Principal;

beforeAll(async () => {
  tools = await openToolCaller('as-of');
  ({ runtime, principal } = tools);
});
afterAll(() => tools?.close());

interface Hit {
  readonly node_id: string;
  readonly relations?: { from: string; to: string; type: string }[];
}

async function hits(name: 'recall' | 'query', args: Json): Promise<Hit[]> {
  const { isError, structured } = await tools.call(name, { ...args, ...(name === 'query' ? { layer: 'L0' } : {}) });
  expect(isError, JSON.stringify(structured)).toBe(false);
  return structured.results as Hit[];
}

describe('as_of on the MCP recall and query tools', () => {
  it('graph_context gives the declared relations that held at as_of', async () => {
    const [target, lasting] = await Promise.all(
      ['The ferry timetable changes in winter.', 'Tall ships announce themselves by radio.'].map(async (content) => (await runtime.facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 })).node_id),
    );
    const ends = new Date(Date.now() + 3_600_000).toISOString();
    const after = new Date(Date.now() + 7_200_000).toISOString();
    const start = (
      await runtime.facade.store(principal, {
        content: 'The pelican bridge opens for tall ships at dawn.',
        cell_type: 'Fact',
        salience: 0.5,
        relations: [
          { to: target as string, type: 'holds_until', valid_until: ends },
          { to: lasting as string, type: 'holds_always' },
        ],
      })
    ).node_id;
    const search = { query: 'pelican bridge opens for tall ships at dawn', k: 1, mode: 'lexical', graph_context: true };
    for (const name of ['recall', 'query'] as const) {
      const now = await hits(name, search);
      expect(now[0]?.node_id).toBe(start);
      expect(now[0]?.relations?.map((r) => r.type).sort()).toEqual(['holds_always', 'holds_until']);
      const later = await hits(name, { ...search, as_of: after });
      expect(later[0]?.node_id).toBe(start);
      expect(later[0]?.relations).toEqual([{ from: start, to: lasting, type: 'holds_always' }]);
    }
  });

  it('searches the versions current at as_of: a superseded version then, the newer one now', async () => {
    const old = await runtime.facade.store(principal, { content: 'The kiln fires at nine hundred degrees.', cell_type: 'Fact', salience: 0.5 });
    const oldCell = await runtime.facade.getCell(principal, old.node_id);
    const replaced = await runtime.facade.store(principal, { content: 'The kiln fires at nine hundred and fifty degrees.', cell_type: 'Fact', salience: 0.5, supersedes: old.node_id });
    const search = { query: 'kiln fires degrees', k: 1, mode: 'lexical' };
    for (const name of ['recall', 'query'] as const) {
      expect((await hits(name, search)).map((h) => h.node_id)).toEqual([replaced.node_id]);
      expect((await hits(name, { ...search, as_of: oldCell.valid_from })).map((h) => h.node_id)).toEqual([old.node_id]);
    }
  });

  it('refuses an as_of that is no instant, naming it', async () => {
    for (const name of ['recall', 'query']) {
      const { isError, structured } = await tools.call(name, { query: 'kiln', as_of: 'yesterday', ...(name === 'query' ? { layer: 'L0' } : {}) });
      expect(isError).toBe(true);
      const issues = (structured.error as { issues: { path: string; message: string }[] }).issues;
      expect(issues.length).toBeGreaterThan(0);
      // Date-time rules refused it, not the rule against unknown arguments.
      for (const issue of issues) {
        expect(issue.path).toBe('as_of');
        expect(issue.message).not.toMatch(/unrecognized|unknown/i);
      }
    }
  });
});
