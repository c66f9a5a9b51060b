/**
 * Where one MCP session's resource subscriptions are kept. Over stdio the session is the process,
 * so they live in memory; over HTTP any replica may answer any request, so they are stored through
 * the facade (PostgreSQL), keyed by agent and the MCP session id minted at initialize.
 */
import type { Principal } from '../../core/principal.js';
import type { MemoryFacade } from '../../service/memory-facade.js';

export interface SessionSubscriptions {
  add(resource: string): Promise<void>;
  remove(resource: string): Promise<void>;
  current(): Promise<ReadonlySet<string>>;
}

/** Cell subscriptions are checked through the facade first: a cell the caller cannot read is not found. */
export class InMemorySubscriptions implements SessionSubscriptions {
  private readonly resources = new Set<string>();

  constructor(
    private readonly facade: Pick<MemoryFacade, 'getCell'>,
    private readonly principal: Principal,
  ) {}

  async add(resource: string): Promise<void> {
    if (resource.startsWith('cell:')) await this.facade.getCell(this.principal, resource.slice('cell:'.length));
    this.resources.add(resource);
  }

  async remove(resource: string): Promise<void> {
    this.resources.delete(resource);
  }

  async current(): Promise<ReadonlySet<string>> {
    return new Set(this.resources);
  }
}

export function storedSubscriptions(
  facade: Pick<MemoryFacade, 'subscribeResource' | 'unsubscribeResource' | 'resourceSubscriptions'>,
  principal: Principal,
  session: string,
): SessionSubscriptions {
  return {
    add: (resource) => facade.subscribeResource(principal, { session, resource }),
    remove: (resource) => facade.unsubscribeResource(principal, { session, resource }),
    current: async () => new Set(await facade.resourceSubscriptions(principal, session)),
  };
}
