/**
 * Where one MCP session's resource subscriptions are kept. Over stdio the session is the process,
 * so they live in memory; over HTTP any replica may answer any request, so they are stored through
 * the facade (PostgreSQL), keyed by agent and the MCP session id minted at initialize.
 */
import type { Principal } from '../../../core/principal.js';
import type { MemoryFacade } from '../../../service/memory-facade.js';
import type { SessionSubscriptions } from '../../server/handshake-methods.js';
import type { HyphaeResourceUri } from './resource-uris.js';

export const INBOX_SUBSCRIPTION_KEY = 'inbox';
const CELL_KEY_PREFIX = 'cell:';

/** The subscription key of a cell: `cell:<node_id>` (what the facade stores). */
export function cellSubscriptionKey(nodeId: string): string {
  return `${CELL_KEY_PREFIX}${nodeId}`;
}

/** The cell a subscription key names, or undefined for the inbox's key. */
export function subscribedCellOf(key: string): string | undefined {
  return key.startsWith(CELL_KEY_PREFIX) ? key.slice(CELL_KEY_PREFIX.length) : undefined;
}

/** The subscription key of a resource: `inbox` or `cell:<node_id>`. */
export function subscriptionKeyOf(target: HyphaeResourceUri): string {
  return target.kind === 'inbox' ? INBOX_SUBSCRIPTION_KEY : cellSubscriptionKey(target.nodeId);
}

export type { SessionSubscriptions };

/** Cell subscriptions are checked through the facade first: a cell the caller cannot read is not found. */
export class InMemorySubscriptions implements SessionSubscriptions {
  private readonly resources = new Set<string>();

  constructor(
    private readonly facade: Pick<MemoryFacade, 'getCell'>,
    private readonly principal: Principal,
  ) {}

  async add(resource: string): Promise<void> {
    const cell = subscribedCellOf(resource);
    if (cell !== undefined) await this.facade.getCell(this.principal, cell);
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
