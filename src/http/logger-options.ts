/**
 * fastify's pino logger, JSON lines, with secrets redacted: the API key header, Authorization,
 * cookies and any `key` field (a created key is returned once and must never reach a log). Every
 * logged `err` (ours or fastify's) goes through loggableError: no SQL, parameters or content.
 */
import type { FastifyServerOptions } from 'fastify';
import { loggableError } from '../core/loggable-error.js';
import { API_KEY_HEADER } from '../surface-shared/index.js';
import type { RequestLogLevel } from './request-log.js';

export interface HttpLoggerOptions {
  readonly level: string;
  /** The level request lines are written at (src/http/request-log.ts); default `info`. */
  readonly requests?: RequestLogLevel;
  /** Where JSON lines go; stdout when absent. Tests pass a stream to read them. */
  readonly stream?: NodeJS.WritableStream;
}

export const REDACTED_PATHS: readonly string[] = [
  `req.headers["${API_KEY_HEADER}"]`,
  'req.headers.authorization',
  'req.headers.cookie',
  `headers["${API_KEY_HEADER}"]`,
  'headers.authorization',
  'key',
  '*.key',
  '*.*.key',
  'apiKey',
  '*.apiKey',
];

export function pinoOptions(options: HttpLoggerOptions): NonNullable<FastifyServerOptions['logger']> {
  return {
    level: options.level,
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    serializers: { err: (error: unknown) => ({ ...loggableError(error) }), error: loggableError },
    ...(options.stream === undefined ? {} : { stream: options.stream }),
  };
}
