/** What `hydradb_inspect` in `url` mode needs from its transport: a signed link to one slice of one source (docs/coming-from-hydradb.md). */
import type { Principal } from '../../../core/principal.js';

/** The one slice a link opens, and nothing else. */
export interface LinkedSlice {
  readonly project: string;
  readonly sourceId: string;
  readonly offset: number;
  readonly limit: number;
}

export interface SourceLinks {
  /** A URL of the REST slice route that opens this slice for the principal's tenant until `expirySeconds` from now. */
  link(principal: Principal, slice: LinkedSlice, expirySeconds: number): { readonly url: string; readonly expires_at: string };
}
