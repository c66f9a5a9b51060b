/**
 * The memory facade with its latencies and deliveries reported to the process metrics: store,
 * recall and query durations, diffs handed out by drain_inbox and pull_diffs, and feedback by where its truth ranked. Every other
 * method is the facade's own (prototype delegation keeps the wrapper to what it measures).
 */
import type { ManagedMemoryFacade } from './create-memory-facade.js';

export interface FacadeObserver {
  observeStore(seconds: number): void;
  observeRecall(seconds: number): void;
  countDiffsDelivered(transport: 'inbox' | 'pull', count: number): void;
  /** One recorded feedback, by sender label and where its truth ranked (docs/feedback.md). */
  observeFeedback(judgement: { readonly tenantId: string; readonly label: 'agent' | 'human'; readonly judged: boolean; readonly truthRank: number | null }): void;
}

async function timed<T>(work: () => Promise<T>, observe: (seconds: number) => void): Promise<T> {
  const started = performance.now();
  try {
    return await work();
  } finally {
    observe((performance.now() - started) / 1000);
  }
}

export function meteredFacade(inner: ManagedMemoryFacade, observer: FacadeObserver): ManagedMemoryFacade {
  const overrides: Partial<ManagedMemoryFacade> = {
    store: (principal, input) => timed(() => inner.store(principal, input), (s) => observer.observeStore(s)),
    recall: (principal, input, options) => timed(() => inner.recall(principal, input, options), (s) => observer.observeRecall(s)),
    query: (principal, input, options) => timed(() => inner.query(principal, input, options), (s) => observer.observeRecall(s)),
    drainInbox: async (principal, input) => {
      const page = await inner.drainInbox(principal, input);
      if (page.diffs.length > 0) observer.countDiffsDelivered('inbox', page.diffs.length);
      return page;
    },
    pullDiffs: async (principal, input) => {
      const page = await inner.pullDiffs(principal, input);
      if (page.diffs.length > 0) observer.countDiffsDelivered('pull', page.diffs.length);
      return page;
    },
    submitFeedback: async (principal, input) => {
      const receipt = await inner.submitFeedback(principal, input);
      observer.observeFeedback({ tenantId: principal.tenantId, label: receipt.label, judged: receipt.judged, truthRank: receipt.truth_rank });
      return receipt;
    },
  };
  return Object.assign(Object.create(inner) as ManagedMemoryFacade, overrides);
}
