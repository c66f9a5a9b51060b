/**
 * The relations of a memory-server graph by the names they join, built in one pass: each relation
 * is appended once under each of its names (never by copying a list), so building it is linear in
 * the relations; what an entity's cells carry is capped, with the full count beside it.
 */

export interface GraphRelation {
  readonly from: string;
  readonly relation_type: string;
  readonly to: string;
}

/** What a cell's metadata says of its entity's relations. */
export interface EntityRelations {
  /** The first MAX_RELATIONS_PER_ENTITY, in the order of the file. */
  readonly relations: readonly GraphRelation[];
  readonly relation_count: number;
}

/** Relations kept in each cell of an entity: a hub's thousands would be copied into every one of its cells. */
export const MAX_RELATIONS_PER_ENTITY = 100;

export class RelationIndex {
  private readonly byName = new Map<string, GraphRelation[]>();
  private readonly counts = new Map<string, number>();
  private writes = 0;

  /** Entries written so far: at most two per relation (one per name it joins). */
  get entriesWritten(): number {
    return this.writes;
  }

  add(relation: GraphRelation): void {
    for (const name of relation.from === relation.to ? [relation.from] : [relation.from, relation.to]) {
      const count = (this.counts.get(name) ?? 0) + 1;
      this.counts.set(name, count);
      if (count > MAX_RELATIONS_PER_ENTITY) continue;
      const list = this.byName.get(name);
      if (list === undefined) this.byName.set(name, [relation]);
      else list.push(relation);
      this.writes += 1;
    }
  }

  of(name: string): EntityRelations {
    return { relations: this.byName.get(name) ?? [], relation_count: this.counts.get(name) ?? 0 };
  }
}
