/** The WHERE of a cells statement: the shared conditions plus which versions of a cell a read sees. */
import { SqlConditions } from './sql/conditions.js';

/**
 * The one visibility condition of expiry (docs/expiry.md): a row of cells or sources is readable
 * until its expires_at. Every read of those tables states it — through CellConditions, which adds
 * it by default, or this function — so an expired item leaves every read path at that instant,
 * before any sweep has run. `alias` qualifies the column when the statement joins.
 */
export function liveRow(alias = ''): string {
  const column = alias === '' ? 'expires_at' : `${alias}.expires_at`;
  return `(${column} IS NULL OR ${column} > now())`;
}

/**
 * Which versions a read sees: the current ones (default), every version, or those valid at an
 * instant (created by then, not yet superseded then).
 */
export type Validity = { readonly kind: 'current' } | { readonly kind: 'all' } | { readonly kind: 'at'; readonly asOf: string };

/** Conditions on cells that start with the expiry condition: a read built on them cannot forget it. */
export class CellConditions extends SqlConditions {
  constructor(params: readonly unknown[], conditions: readonly string[]) {
    super(params, [...conditions, liveRow()]);
  }

  validity(validity: Validity | undefined): this {
    if (validity === undefined || validity.kind === 'current') return this.addRaw('valid_until IS NULL');
    if (validity.kind === 'all') return this;
    return this.add((n) => `valid_from <= $${n}::timestamptz AND (valid_until IS NULL OR valid_until > $${n}::timestamptz)`, validity.asOf);
  }
}
