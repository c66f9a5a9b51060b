// Typed operator errors: callers branch on `code`, never on message text.

export type OperatorErrorCode = 'KUBE_REQUEST_FAILED' | 'KUBE_CONFIG_INVALID' | 'WATCH_EXPIRED';

export class OperatorError extends Error {
  readonly code: OperatorErrorCode;
  constructor(code: OperatorErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'OperatorError';
    this.code = code;
  }
}

/** A non-2xx answer from the API server; `status` and `reason` come from its Status object. */
export class KubeApiError extends OperatorError {
  readonly status: number;
  readonly reason: string;
  constructor(method: string, path: string, status: number, reason: string, detail: string) {
    super('KUBE_REQUEST_FAILED', `${method} ${path} failed: ${status} ${reason}${detail ? `: ${detail}` : ''}`);
    this.name = 'KubeApiError';
    this.status = status;
    this.reason = reason;
  }
}

/** The watch's resourceVersion is too old (HTTP 410 Gone): the informer must relist. */
export class WatchExpiredError extends OperatorError {
  constructor(path: string) {
    super('WATCH_EXPIRED', `watch on ${path} expired (410 Gone)`);
    this.name = 'WatchExpiredError';
  }
}

export function isNotFound(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 404;
}

export function isConflict(err: unknown): boolean {
  return err instanceof KubeApiError && err.status === 409;
}
