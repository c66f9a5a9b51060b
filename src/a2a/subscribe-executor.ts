/**
 * The AgentExecutor of subscribe tasks: a WORKING task that publishes each diff addressed to the
 * caller as an artifact update, until it is cancelled (CANCELED), its opening stream goes away
 * (CANCELED), the server ends the feed because the key was revoked (FAILED), or the process
 * closes (COMPLETED — subscribe again with after_seq to resume on any replica).
 */
import { TaskState } from '@a2a-js/sdk';
import { AgentEvent, type AgentExecutor, type ExecutionEventBus, type RequestContext, type ServerCallContext } from '@a2a-js/sdk/server';
import { diffArtifact, statusText } from './skill-replies.js';
import { takeOver, type DiffStream } from './diff-stream.js';

/** Structurally a subset of HyphaeMetrics. */
export interface SubscribeMetrics {
  addLiveStreams(delta: number): void;
  countDiffsDelivered(transport: 'sse', count: number): void;
}

interface RunningTask {
  finish(state: TaskState, text: string): void;
}

export class SubscribeExecutor implements AgentExecutor {
  private readonly byBus = new Map<ExecutionEventBus, RunningTask>();
  private readonly byStream = new WeakMap<DiffStream, RunningTask>();

  constructor(private readonly metrics?: SubscribeMetrics) {}

  execute = async (request: RequestContext, bus: ExecutionEventBus): Promise<void> => {
    const { taskId, contextId } = request;
    const stream = takeOver(request.context);
    const status = (state: TaskState, text?: string): { state: TaskState; message: ReturnType<typeof statusText> | undefined; timestamp: string } => ({
      state,
      message: text === undefined ? undefined : statusText('subscribe', contextId, taskId, text),
      timestamp: new Date().toISOString(),
    });
    bus.publish(AgentEvent.task({ id: taskId, contextId, status: status(TaskState.TASK_STATE_WORKING), artifacts: [], history: [request.userMessage], metadata: {} }));
    if (stream === undefined) {
      // Only a follow-up message could get here, and the request handler refuses those.
      bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(TaskState.TASK_STATE_REJECTED, 'no diff stream for this task'), metadata: {} }));
      return;
    }
    let settle = (): void => undefined;
    const done = new Promise<void>((resolve) => {
      settle = resolve;
    });
    let open = true;
    const running: RunningTask = {
      finish: (state, text) => {
        if (!open) return;
        open = false;
        bus.publish(AgentEvent.statusUpdate({ taskId, contextId, status: status(state, text), metadata: {} }));
        settle();
      },
    };
    this.byBus.set(bus, running);
    this.byStream.set(stream, running);
    this.metrics?.addLiveStreams(1);
    stream.attach((diff) => {
      if (!open) return;
      bus.publish(AgentEvent.artifactUpdate({ taskId, contextId, artifact: diffArtifact(diff), append: false, lastChunk: true, metadata: {} }));
      this.metrics?.countDiffsDelivered('sse', 1);
    });
    void stream.ended?.then(() => running.finish(TaskState.TASK_STATE_FAILED, 'the server ended the stream: the API key was revoked'));
    await done;
    this.byBus.delete(bus);
    this.metrics?.addLiveStreams(-1);
    await stream.close().catch(() => undefined);
  };

  cancelTask = async (taskId: string, bus: ExecutionEventBus): Promise<void> => {
    const running = this.byBus.get(bus);
    if (running !== undefined) {
      running.finish(TaskState.TASK_STATE_CANCELED, 'subscription cancelled');
      return;
    }
    // The task is ending by itself: the SDK still waits for a terminal state on its bus.
    bus.publish(AgentEvent.statusUpdate({
      taskId,
      contextId: '',
      status: { state: TaskState.TASK_STATE_CANCELED, message: undefined, timestamp: new Date().toISOString() },
      metadata: {},
    }));
  };

  /** The subscribe task this call opened ends with it (an abandoned task would hold a stream slot forever). */
  endOpenedBy(context: ServerCallContext): void {
    const stream = takeOver(context);
    if (stream === undefined) return;
    this.byStream.get(stream)?.finish(TaskState.TASK_STATE_CANCELED, 'the stream that opened the subscription closed');
  }

  /** Server shutdown: every subscribe task completes, so its SSE response ends. */
  closeAll(): void {
    for (const running of [...this.byBus.values()]) {
      running.finish(TaskState.TASK_STATE_COMPLETED, 'the server is closing: subscribe again with after_seq to resume');
    }
  }
}
