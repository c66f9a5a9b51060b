/**
 * What a HydraDB `database` and `collection` mean here (docs/coming-from-hydradb.md): the database is
 * the tenant of the caller's credential, and naming another (header, environment or argument) is
 * refused; a collection is a project within the caller's project scope, and one outside it reads
 * exactly as a collection that does not exist. Nothing here widens what the credential allows.
 */
import { ForbiddenError, NotFoundError } from '../../../core/errors.js';
import { canAccessProject, type Principal } from '../../../core/principal.js';

/** The defaults of one connection: a stdio launch's environment, or one HTTP request's headers. */
export interface HydraConnection {
  /** X-HydraDB-Database / HYDRADB_DATABASE: must name the credential's tenant. */
  readonly database?: string;
  /** X-HydraDB-Collection / HYDRADB_COLLECTION: the default collection (a project). */
  readonly collection?: string;
}

/** The per-call scope overrides every HydraDB tool accepts. */
export interface ScopeArguments {
  readonly database?: string | undefined;
  readonly collection?: string | undefined;
}

/** Refuses a database that is not the credential's tenant; the answer is the same whatever the name, so it tells nothing about other tenants. */
export function requireOwnDatabase(principal: Principal, database: string | undefined): void {
  if (database !== undefined && database !== principal.tenantId) {
    throw new ForbiddenError('database is not the tenant of your credential: a HydraDB database here is your key\'s tenant, and no other can be named');
  }
}

/** A collection the caller may use, else NOT_FOUND as for one that does not exist. */
export function requireCollection(principal: Principal, collection: string): string {
  if (!canAccessProject(principal, collection)) throw new NotFoundError('collection', collection);
  return collection;
}

/**
 * The project one call works in: its `collection`, else the connection's, else undefined (the
 * caller's current project, as every Hyphae tool). The database is checked first, from the call and then the connection.
 */
export function projectOfCall(principal: Principal, connection: HydraConnection, args: ScopeArguments): string | undefined {
  requireOwnDatabase(principal, args.database);
  requireOwnDatabase(principal, connection.database);
  const collection = args.collection ?? connection.collection;
  return collection === undefined ? undefined : requireCollection(principal, collection);
}
