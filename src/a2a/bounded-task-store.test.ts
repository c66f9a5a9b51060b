import { TaskState, type Task } from '@a2a-js/sdk';
import { describe, expect, it } from 'vitest';
import type { Principal } from '../core/principal.js';
import { BoundedTaskStore } from './bounded-task-store.js';
import { callContextFor } from './caller-identity.js';

const principal = (tenantId: string, agent: string): Principal => ({
  tenantId,
  agent,
  keyId: `${tenantId}-${agent}`,
  roles: ['writer'],
  projects: ['*'],
  defaultProject: 'default',
  trust: 1,
});

const task = (id: string, state: TaskState, second: number, contextId = 'c'): Task => ({
  id,
  contextId,
  status: { state, message: undefined, timestamp: new Date(Date.UTC(2026, 11, 3, 17, 0, second)).toISOString() },
  artifacts: [{ artifactId: 'diff', name: 'diff', description: '', parts: [], metadata: {}, extensions: [] }],
  history: [],
  metadata: {},
});

const listAll = { tenant: '', contextId: '', status: TaskState.TASK_STATE_UNSPECIFIED, pageToken: '', statusTimestampAfter: undefined };

describe('BoundedTaskStore', () => {
  const ada = callContextFor(principal('acme', 'ada'), '1.0');
  const bob = callContextFor(principal('acme', 'bob'), '1.0');
  const globexAda = callContextFor(principal('globex', 'ada'), '1.0');

  it('keeps tasks per tenant and agent: another owner’s id is not found', async () => {
    const store = new BoundedTaskStore();
    await store.save(task('t1', TaskState.TASK_STATE_WORKING, 1), ada);
    expect((await store.load('t1', ada))?.id).toBe('t1');
    expect(await store.load('t1', bob)).toBeUndefined();
    expect(await store.load('t1', globexAda)).toBeUndefined();
    expect((await store.list(listAll, bob)).tasks).toEqual([]);
  });

  it('drops the oldest finished tasks beyond its bound and never a running one', async () => {
    const store = new BoundedTaskStore(2);
    await store.save(task('running', TaskState.TASK_STATE_WORKING, 0), ada);
    for (let i = 1; i <= 5; i += 1) await store.save(task(`done-${i}`, TaskState.TASK_STATE_CANCELED, i), ada);
    const ids = (await store.list(listAll, ada)).tasks.map((t) => t.id);
    expect(ids).toEqual(['done-5', 'done-4', 'running']);
    expect(await store.load('done-1', ada)).toBeUndefined();
    // A task saved again (a new state) counts as the newest.
    await store.save(task('running', TaskState.TASK_STATE_COMPLETED, 9), ada);
    expect((await store.list(listAll, ada)).tasks.map((t) => t.id)).toEqual(['running', 'done-5']);
  });

  it('lists newest first with filters, pages and artifacts only when asked', async () => {
    const store = new BoundedTaskStore();
    await store.save(task('a', TaskState.TASK_STATE_WORKING, 1, 'x'), ada);
    await store.save(task('b', TaskState.TASK_STATE_CANCELED, 2, 'x'), ada);
    await store.save(task('c', TaskState.TASK_STATE_WORKING, 3, 'y'), ada);
    expect((await store.list({ ...listAll, contextId: 'x' }, ada)).tasks.map((t) => t.id)).toEqual(['b', 'a']);
    expect((await store.list({ ...listAll, status: TaskState.TASK_STATE_WORKING }, ada)).tasks.map((t) => t.id)).toEqual(['c', 'a']);
    expect((await store.list({ ...listAll, statusTimestampAfter: '2026-12-03T17:00:01.500Z' }, ada)).tasks.map((t) => t.id)).toEqual(['c', 'b']);
    const first = await store.list({ ...listAll, pageSize: 2 }, ada);
    expect([first.tasks.map((t) => t.id), first.totalSize]).toEqual([['c', 'b'], 3]);
    expect(first.tasks[0]?.artifacts).toEqual([]);
    const second = await store.list({ ...listAll, pageSize: 2, pageToken: first.nextPageToken, includeArtifacts: true }, ada);
    expect([second.tasks.map((t) => t.id), second.nextPageToken]).toEqual([['a'], '']);
    expect(second.tasks[0]?.artifacts).toHaveLength(1);
    await expect(store.list({ ...listAll, pageToken: 'not-a-token' }, ada)).rejects.toThrow(/pageToken/);
  });
});
