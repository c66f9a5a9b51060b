import { describe, expect, it } from 'vitest';
import { HyphaeError, NotFoundError, RateLimitedError, UnavailableError } from '../core/errors.js';
import { toErrorReply } from './error-reply.js';

describe('toErrorReply', () => {
  it('keeps a HyphaeError code, status and details', () => {
    const reply = toErrorReply(new NotFoundError('cell', 'abc'));
    expect(reply.status).toBe(404);
    expect(reply.body).toEqual({ error: { code: 'NOT_FOUND', message: 'cell abc not found', details: { kind: 'cell', id: 'abc' } } });
    expect(reply.serverFault).toBe(false);
  });

  it('adds Retry-After to RATE_LIMITED', () => {
    const reply = toErrorReply(new RateLimitedError(7));
    expect(reply.status).toBe(429);
    expect(reply.headers).toEqual({ 'retry-after': '7' });
  });

  it('adds Retry-After to UNAVAILABLE when the error says when to retry, and only then', () => {
    const reply = toErrorReply(new UnavailableError('database unavailable', { retryAfterSeconds: 0.2 }));
    expect(reply).toMatchObject({ status: 503, headers: { 'retry-after': '1' } });
    expect(reply.body.error.details).toEqual({ retry_after_seconds: 0.2 });
    expect(toErrorReply(new UnavailableError('NATS is disconnected')).headers).toEqual({});
  });

  it('never shows the message of an unknown error or an INTERNAL one', () => {
    const sqlError = new Error('relation "cells" does not exist at SELECT * FROM cells WHERE tenant_id = $1');
    expect(toErrorReply(sqlError)).toMatchObject({ status: 500, body: { error: { code: 'INTERNAL', message: 'internal error' } }, serverFault: true });
    const internal = new HyphaeError('INTERNAL', 'pool exhausted on host db-0', { details: { host: 'db-0' } });
    expect(toErrorReply(internal).body).toEqual({ error: { code: 'INTERNAL', message: 'internal error' } });
  });

  it('maps fastify client errors to INVALID_ARGUMENT or TOO_LARGE', () => {
    const parse = Object.assign(new Error('Body is not valid JSON'), { code: 'FST_ERR_CTP_INVALID_JSON_BODY', statusCode: 400 });
    const large = Object.assign(new Error('Request body is too large'), { code: 'FST_ERR_CTP_BODY_TOO_LARGE', statusCode: 413 });
    expect(toErrorReply(parse)).toMatchObject({ status: 400, body: { error: { code: 'INVALID_ARGUMENT' } } });
    expect(toErrorReply(large)).toMatchObject({ status: 413, body: { error: { code: 'TOO_LARGE' } } });
  });
});
