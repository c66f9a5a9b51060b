/**
 * Writing the relations a cell declares, inside the caller's transaction: every target must be a
 * cell the principal can read, and a target it cannot read — another tenant's, another project's,
 * deleted, never written — is refused exactly as a random id is (NOT_FOUND naming that id), so a
 * relation is no oracle of what exists elsewhere.
 */
import { InvalidArgumentError, NotFoundError } from '../../core/errors.js';
import type { Principal } from '../../core/principal.js';
import { MAX_RELATIONS_PER_CELL, type Relation, type RelationInput } from '../../core/relation-schemas.js';
import type { Queryable } from '../../store/db.js';
import { declareRelationRows } from '../../store/relation-repository.js';
import { readableProjects } from '../facade/authorization.js';

/** The relations, ids lowercased and repeats dropped, in the order given. */
export function normalizedRelations(relations: readonly RelationInput[]): RelationInput[] {
  const seen = new Set<string>();
  const out: RelationInput[] = [];
  for (const relation of relations) {
    const normal = { to: relation.to.toLowerCase(), type: relation.type, ...(relation.valid_until === undefined ? {} : { valid_until: relation.valid_until }) };
    const key = `${normal.to} ${normal.type}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push(normal);
  }
  return out;
}

/**
 * The relations a cell declares, checked before anything is written: ids lowercased and repeats
 * dropped, none ending by `now`, none to the cell itself.
 */
export function checkedRelations(fromNodeId: string | null, relations: readonly RelationInput[], now: Date): RelationInput[] {
  const wanted = normalizedRelations(relations);
  if (wanted.some((r) => r.valid_until !== undefined && Date.parse(r.valid_until) <= now.getTime())) {
    throw new InvalidArgumentError('valid_until of a relation must be later than now: a relation cannot be declared already ended', [{ path: 'relations.valid_until', message: 'must be in the future' }]);
  }
  if (wanted.some((r) => r.to === fromNodeId)) {
    throw new InvalidArgumentError('a cell cannot relate to itself', [{ path: 'relations', message: 'to names the cell itself' }]);
  }
  return wanted;
}

/** Refuses the first relation whose target is not among `readable`, exactly as a random id is refused (the caller's transaction rolls back). */
export function refuseUnreadable(wanted: readonly RelationInput[], readable: ReadonlySet<string>): void {
  const unreadable = wanted.find((r) => !readable.has(r.to));
  if (unreadable !== undefined) throw new NotFoundError('cell', unreadable.to);
}

/** Checks and adds relations from a cell the principal can read (the caller checked it); returns those added. */
export async function declareRelations(
  tx: Queryable,
  principal: Principal,
  fromNodeId: string,
  relations: readonly RelationInput[],
  now: Date,
): Promise<Relation[]> {
  const wanted = checkedRelations(fromNodeId, relations, now);
  if (wanted.length === 0) return [];
  const { readable, held, added } = await declareRelationRows(tx, {
    tenantId: principal.tenantId,
    fromNodeId,
    relations: wanted,
    projects: readableProjects(principal),
    createdBy: principal.agent,
    now,
  });
  refuseUnreadable(wanted, readable);
  if (held + added.length > MAX_RELATIONS_PER_CELL) {
    // No count in the message: the cell's relations to cells the caller cannot read count against the bound but are not the caller's to number.
    throw new InvalidArgumentError(`a cell declares at most ${MAX_RELATIONS_PER_CELL} relations, those to cells you cannot read included; these would pass it`, [
      { path: 'relations', message: `at most ${MAX_RELATIONS_PER_CELL} relations per cell` },
    ]);
  }
  return added;
}
