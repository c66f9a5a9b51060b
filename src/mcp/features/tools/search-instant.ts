/** recall's and query's optional `as_of`: the instant they read, as REST's body field of that name (docs/mcp.md). */
import { validityFields } from '../../../core/schemas.js';
import type { HydrateOption } from '../../../service/memory-facade.js';

export const asOfArgument = {
  as_of: validityFields.as_of.describe(
    'RFC 3339: search the versions that were current at this instant, and with graph_context give the declared relations that held then; now when absent',
  ),
};

/** The facade's options for a tool's search: nodes to link, and the instant when the call named one. */
export function searchOptions(asOf: string | undefined): HydrateOption {
  return asOf === undefined ? { withNodes: true } : { withNodes: true, validity: { as_of: asOf } };
}
