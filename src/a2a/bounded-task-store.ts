/**
 * The A2A task store: the SDK's in-memory semantics (tasks per owner, ListTasks filters and
 * pages, newest first), bounded. Every subscribe leaves a finished task behind, so a long-lived
 * server would otherwise grow without end: each owner keeps its running tasks and at most
 * `maxFinishedPerOwner` finished ones, the oldest dropped first (a dropped task reads as not found).
 */
import { TaskState, type ListTasksRequest, type ListTasksResponse, type Task } from '@a2a-js/sdk';
import { RequestMalformedError } from '@a2a-js/sdk/errors';
import type { ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { ownerOf } from './caller-identity.js';

const FINISHED: ReadonlySet<TaskState> = new Set([
  TaskState.TASK_STATE_COMPLETED,
  TaskState.TASK_STATE_FAILED,
  TaskState.TASK_STATE_CANCELED,
  TaskState.TASK_STATE_REJECTED,
]);
const DEFAULT_PAGE_SIZE = 50;

function isFinished(task: Task): boolean {
  return task.status !== undefined && FINISHED.has(task.status.state);
}

function timestampOf(task: Task): string {
  return task.status?.timestamp ?? '';
}

function pageToken(task: Task): string {
  return Buffer.from(JSON.stringify([timestampOf(task), task.id])).toString('base64url');
}

function afterToken(token: string): (task: Task) => boolean {
  let cursor: unknown;
  try {
    cursor = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
  } catch {
    throw new RequestMalformedError('pageToken is not a token this server gave');
  }
  if (!Array.isArray(cursor) || typeof cursor[0] !== 'string' || typeof cursor[1] !== 'string') {
    throw new RequestMalformedError('pageToken is not a token this server gave');
  }
  const [timestamp, id] = cursor as [string, string];
  return (task) => timestampOf(task) < timestamp || (timestampOf(task) === timestamp && task.id < id);
}

/** Newest first, ties by id descending: the order the SDK's store lists in. */
function newestFirst(a: Task, b: Task): number {
  const byTime = timestampOf(b).localeCompare(timestampOf(a));
  return byTime !== 0 ? byTime : b.id.localeCompare(a.id);
}

export class BoundedTaskStore implements TaskStore {
  private readonly byOwner = new Map<string, Map<string, Task>>();

  constructor(private readonly maxFinishedPerOwner = 100) {}

  async load(taskId: string, context: ServerCallContext): Promise<Task | undefined> {
    const task = this.byOwner.get(ownerOf(context))?.get(taskId);
    return task === undefined ? undefined : structuredClone(task);
  }

  async save(task: Task, context: ServerCallContext): Promise<void> {
    const owner = ownerOf(context);
    const tasks = this.byOwner.get(owner) ?? new Map<string, Task>();
    this.byOwner.set(owner, tasks);
    tasks.delete(task.id);
    tasks.set(task.id, structuredClone(task));
    this.evict(tasks);
  }

  async list(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    const pageSize = params.pageSize ?? DEFAULT_PAGE_SIZE;
    const after = params.statusTimestampAfter === undefined ? undefined : new Date(params.statusTimestampAfter).getTime();
    const matching = [...(this.byOwner.get(ownerOf(context))?.values() ?? [])]
      .filter((task) => params.contextId === '' || task.contextId === params.contextId)
      .filter((task) => params.status === TaskState.TASK_STATE_UNSPECIFIED || task.status?.state === params.status)
      .filter((task) => after === undefined || new Date(timestampOf(task)).getTime() > after)
      .sort(newestFirst);
    const rest = params.pageToken === '' ? matching : matching.filter(afterToken(params.pageToken));
    const page = rest.slice(0, pageSize);
    const last = page.at(-1);
    return {
      tasks: page.map((task) => ({ ...structuredClone(task), artifacts: params.includeArtifacts === true ? structuredClone(task.artifacts) : [] })),
      nextPageToken: rest.length > page.length && last !== undefined ? pageToken(last) : '',
      pageSize,
      totalSize: matching.length,
    };
  }

  /** Drops the oldest-saved finished tasks beyond the bound; running tasks are never dropped. */
  private evict(tasks: Map<string, Task>): void {
    let finished = 0;
    for (const task of tasks.values()) if (isFinished(task)) finished += 1;
    for (const [id, task] of tasks) {
      if (finished <= this.maxFinishedPerOwner) return;
      if (!isFinished(task)) continue;
      tasks.delete(id);
      finished -= 1;
    }
  }
}
