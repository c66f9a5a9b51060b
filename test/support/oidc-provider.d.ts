/**
 * The part of oidc-provider's API the test authorization server uses (the package ships no types;
 * a hand-kept subset avoids a types package for a test-only dependency).
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface AdapterPayload {
    [key: string]: unknown;
    readonly grantId?: string;
    readonly userCode?: string;
    readonly uid?: string;
    consumed?: unknown;
  }

  export interface Adapter {
    upsert(id: string, payload: AdapterPayload, expiresIn?: number): Promise<void>;
    find(id: string): Promise<AdapterPayload | undefined>;
    findByUserCode(userCode: string): Promise<AdapterPayload | undefined>;
    findByUid(uid: string): Promise<AdapterPayload | undefined>;
    consume(id: string): Promise<void>;
    destroy(id: string): Promise<void>;
    revokeByGrantId(grantId: string): Promise<void>;
  }

  export interface ClientRef {
    readonly clientId: string;
  }

  export interface TokenRef {
    readonly clientId?: string;
    readonly accountId?: string;
  }

  export interface Account {
    readonly accountId: string;
    claims(): Record<string, unknown>;
  }

  export interface ResourceServer {
    readonly scope: string;
    readonly audience?: string;
    readonly accessTokenTTL?: number;
    readonly accessTokenFormat?: 'opaque' | 'jwt';
    readonly jwt?: { readonly sign?: { readonly alg?: string } };
  }

  export interface Configuration {
    adapter?: new (name: string) => Adapter;
    jwks?: { keys: readonly object[] };
    cookies?: { keys: readonly string[] };
    clients?: readonly Record<string, unknown>[];
    findAccount?: (ctx: unknown, sub: string) => Promise<Account | undefined>;
    interactions?: { url: (ctx: unknown, interaction: { readonly uid: string }) => string };
    ttl?: Record<string, number>;
    scopes?: readonly string[];
    clientBasedCORS?: (ctx: unknown, origin: string, client: ClientRef) => boolean;
    extraTokenClaims?: (ctx: unknown, token: TokenRef) => Promise<Record<string, unknown> | undefined>;
    features?: {
      devInteractions?: { enabled: boolean };
      registration?: { enabled: boolean };
      introspection?: { enabled: boolean; allowedPolicy?: (ctx: unknown, client: ClientRef, token: TokenRef) => Promise<boolean> };
      revocation?: { enabled: boolean; allowedPolicy?: (ctx: unknown, client: ClientRef, token: TokenRef) => Promise<boolean> };
      resourceIndicators?: {
        enabled: boolean;
        defaultResource?: (ctx: unknown, client: ClientRef, oneOf?: readonly string[]) => readonly string[] | string | undefined;
        useGrantedResource?: (ctx: unknown, model: unknown) => boolean;
        getResourceServerInfo?: (ctx: unknown, resourceIndicator: string, client: ClientRef) => ResourceServer;
      };
    };
  }

  export interface Interaction {
    readonly uid: string;
    readonly prompt: { readonly name: string; readonly details: Record<string, unknown> };
    readonly params: Record<string, unknown>;
    readonly session?: { readonly accountId: string };
    readonly grantId?: string;
  }

  export interface InteractionResults {
    login?: { accountId: string };
    consent?: { grantId?: string };
  }

  export class Grant {
    constructor(properties: { accountId: string; clientId: string });
    static find(id: string): Promise<Grant | undefined>;
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: readonly string[]): void;
    addResourceScope(resource: string, scope: string): void;
    rejectResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  }

  /** The Koa context a middleware sees (the part the test server reads). */
  export interface MiddlewareContext {
    readonly path: string;
    body: unknown;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Configuration);
    readonly Grant: typeof Grant;
    callback(): (req: IncomingMessage, res: ServerResponse) => Promise<void>;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: InteractionResults, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    use(middleware: (ctx: MiddlewareContext, next: () => Promise<void>) => Promise<void>): this;
  }

  export const errors: {
    readonly InvalidTarget: new (description?: string) => Error;
  };
}
