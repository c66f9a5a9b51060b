/** An irreversible action behind a confirmation: open the dialog, run on confirm, keep its error. */
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';
import { asApiError } from './use-load.js';

export interface ConfirmedAction {
  readonly confirming: boolean;
  readonly busy: boolean;
  readonly error: ApiError | undefined;
  ask(): void;
  cancel(): void;
  confirm(): void;
}

export function useConfirmedAction(action: () => Promise<void>): ConfirmedAction {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  return {
    confirming,
    busy,
    error,
    ask: () => setConfirming(true),
    cancel: () => setConfirming(false),
    confirm(): void {
      setBusy(true);
      action().then(
        () => setError(undefined),
        (failure: unknown) => setError(asApiError(failure)),
      ).finally(() => {
        setBusy(false);
        setConfirming(false);
      });
    },
  };
}
