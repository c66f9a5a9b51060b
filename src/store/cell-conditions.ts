/** The WHERE of a cells statement: the shared conditions plus which versions of a cell a read sees. */
import { SqlConditions } from './sql/conditions.js';

/**
 * Which versions a read sees: the current ones (default), every version, or those valid at an
 * instant (created by then, not yet superseded then).
 */
export type Validity = { readonly kind: 'current' } | { readonly kind: 'all' } | { readonly kind: 'at'; readonly asOf: string };

export class CellConditions extends SqlConditions {
  validity(validity: Validity | undefined): this {
    if (validity === undefined || validity.kind === 'current') return this.addRaw('valid_until IS NULL');
    if (validity.kind === 'all') return this;
    return this.add((n) => `valid_from <= $${n}::timestamptz AND (valid_until IS NULL OR valid_until > $${n}::timestamptz)`, validity.asOf);
  }
}
