/**
 * Wraps an SDK client transport so `initialize` asks for a chosen protocol revision (the SDK
 * client always asks for its newest) and records the revision the server answered.
 */
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

export class VersionPinningTransport implements Transport {
  negotiatedVersion: string | undefined;
  private initializeId: string | number | undefined;

  constructor(
    private readonly inner: Transport,
    private readonly requestedVersion: string,
  ) {}

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }
  set onclose(handler: (() => void) | undefined) {
    this.inner.onclose = handler;
  }
  get onclose(): (() => void) | undefined {
    return this.inner.onclose;
  }
  set onerror(handler: ((error: Error) => void) | undefined) {
    this.inner.onerror = handler;
  }
  get onerror(): ((error: Error) => void) | undefined {
    return this.inner.onerror;
  }
  set onmessage(handler: Transport['onmessage']) {
    this.inner.onmessage =
      handler === undefined
        ? undefined
        : (message, extra): void => {
            if ('id' in message && message.id === this.initializeId && 'result' in message) {
              const version = (message.result as { protocolVersion?: unknown }).protocolVersion;
              this.negotiatedVersion = typeof version === 'string' ? version : undefined;
            }
            handler(message, extra);
          };
  }
  get onmessage(): Transport['onmessage'] {
    return this.inner.onmessage;
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    if ('method' in message && message.method === 'initialize' && 'id' in message) {
      this.initializeId = message.id;
      return this.inner.send({ ...message, params: { ...message.params, protocolVersion: this.requestedVersion } }, options);
    }
    return this.inner.send(message, options);
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  close(): Promise<void> {
    return this.inner.close();
  }
}
