export const CELL_TYPES = [
  'Decision',
  'Constraint',
  'Risk',
  'Pattern',
  'Lesson',
  'Fact',
  'Preference',
  'Context',
  'Task',
] as const;

export type CellType = (typeof CELL_TYPES)[number];

export const LAYERS = ['L0', 'L1', 'L2'] as const;
export type Layer = (typeof LAYERS)[number];

/** Cell types whose L0 cells may be promoted to durable L2 knowledge. */
export const PROMOTABLE_TYPES: ReadonlySet<CellType> = new Set<CellType>(['Decision', 'Constraint', 'Pattern', 'Lesson']);

export const DIFF_OPS = ['created', 'updated', 'deleted', 'promoted'] as const;
export type DiffOp = (typeof DIFF_OPS)[number];

export const ROLES = ['admin', 'writer', 'reader'] as const;
export type Role = (typeof ROLES)[number];

/** How recall ranks cells: by meaning (cosine), by the query's words and identifiers, or both (docs/memory-model.md). */
export const SEARCH_MODES = ['vector', 'lexical', 'hybrid'] as const;
export type SearchMode = (typeof SEARCH_MODES)[number];
