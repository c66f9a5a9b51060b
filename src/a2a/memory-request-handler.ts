/**
 * The A2A request handler: the SDK's DefaultRequestHandler (tasks, their store, cancel and
 * resubscribe) with messages routed onto the memory facade first. remember and recall answer with
 * a message and create no task; subscribe is a task, streamed only (a subscribe nobody streams
 * would hold a live-stream slot forever). Identity is the principal on the call's context.
 */
import { randomUUID } from 'node:crypto';
import type { AgentCard, Message, StreamResponse, Task } from '@a2a-js/sdk';
import type {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTaskPushNotificationConfigsResponse,
  ListTasksRequest,
  ListTasksResponse,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from '@a2a-js/sdk';
import { TaskNotFoundError, UnsupportedOperationError } from '@a2a-js/sdk/errors';
import type { A2ARequestHandler, ServerCallContext, TaskStore } from '@a2a-js/sdk/server';
import { UnauthenticatedError } from '../core/errors.js';
import type { Principal } from '../core/principal.js';
import { recallInputSchema, storeInputSchema } from '../core/schemas.js';
import { parseInput } from '../service/index.js';
import type { MemoryFacade } from '../service/memory-facade.js';
import { recordFacadeError } from './a2a-errors.js';
import { principalOf } from './caller-identity.js';
import { DiffStream, handOver } from './diff-stream.js';
import { selectSkill } from './skill-selection.js';
import { recallReply, rememberReply } from './skill-replies.js';

export type MemoryFacadePort = Pick<MemoryFacade, 'store' | 'recall' | 'subscribeDiffs'>;

export class MemoryRequestHandler implements A2ARequestHandler {
  constructor(
    private readonly facade: MemoryFacadePort,
    private readonly tasks: A2ARequestHandler,
    private readonly taskStore: TaskStore,
  ) {}

  getAgentCard(): Promise<AgentCard> {
    return this.tasks.getAgentCard();
  }

  getAuthenticatedExtendedAgentCard(params: GetExtendedAgentCardRequest, context: ServerCallContext): Promise<AgentCard> {
    return this.tasks.getAuthenticatedExtendedAgentCard(params, context);
  }

  async sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    const call = selectSkill(params.message);
    await this.refuseFollowUp(params.message, context);
    if (call.skill === 'subscribe') {
      throw new UnsupportedOperationError('subscribe streams its diffs: send it with SendStreamingMessage (message/stream)');
    }
    return this.answer(call, params.message, context);
  }

  async *sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    const call = selectSkill(params.message);
    await this.refuseFollowUp(params.message, context);
    if (call.skill !== 'subscribe') {
      yield { payload: { $case: 'message', value: await this.answer(call, params.message, context) } };
      return;
    }
    const principal = this.principal(context);
    const stream = await this.facadeCall(context, () => DiffStream.open(this.facade, principal, call.afterSeq));
    handOver(context, stream);
    try {
      yield* this.tasks.sendMessageStream(params, context);
    } finally {
      if (!stream.attached) await stream.close();
    }
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.tasks.getTask(params, context);
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.tasks.listTasks(params, context);
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.tasks.cancelTask(params, context);
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return this.tasks.resubscribe(params, context);
  }

  createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.tasks.createTaskPushNotificationConfig(params, context);
  }

  getTaskPushNotificationConfig(params: GetTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.tasks.getTaskPushNotificationConfig(params, context);
  }

  listTaskPushNotificationConfigs(params: ListTaskPushNotificationConfigsRequest, context: ServerCallContext): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.tasks.listTaskPushNotificationConfigs(params, context);
  }

  deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    return this.tasks.deleteTaskPushNotificationConfig(params, context);
  }

  private principal(context: ServerCallContext): Principal {
    const principal = principalOf(context);
    // The routes authenticate before any call; a context without a principal is refused, not served.
    if (principal === undefined) throw recordFacadeError(context, new UnauthenticatedError());
    return principal;
  }

  /** A subscribe task takes no further messages; another caller's task id is not found. */
  private async refuseFollowUp(message: Message | undefined, context: ServerCallContext): Promise<void> {
    const taskId = message?.taskId ?? '';
    if (taskId === '') return;
    const task = await this.taskStore.load(taskId, context);
    if (task === undefined) throw new TaskNotFoundError(`Task not found: ${taskId}`);
    throw new UnsupportedOperationError('a Hyphae task takes no further messages: send a new message without taskId');
  }

  private async answer(call: ReturnType<typeof selectSkill>, message: Message | undefined, context: ServerCallContext): Promise<Message> {
    const principal = this.principal(context);
    const contextId = message?.contextId || randomUUID();
    if (call.skill === 'remember') {
      const node = await this.facadeCall(context, () => this.facade.store(principal, parseInput(storeInputSchema, call.input)));
      return rememberReply(node, contextId);
    }
    if (call.skill === 'recall') {
      const input = call.input;
      const result = await this.facadeCall(context, () => this.facade.recall(principal, parseInput(recallInputSchema, input), { withNodes: true }));
      return recallReply(result, contextId);
    }
    throw new UnsupportedOperationError('subscribe streams its diffs: send it with SendStreamingMessage (message/stream)');
  }

  private async facadeCall<T>(context: ServerCallContext, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      throw recordFacadeError(context, error);
    }
  }
}
