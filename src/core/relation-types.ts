/** The names of the implicit edges (docs/relations.md), free of zod so the console's bundle can import them. */

/** The edges derived from recorded facts: never stored as relations, so no agent may declare one. */
export const IMPLICIT_RELATION_TYPES = [
  'supersedes',
  'in_scene',
  'in_session',
  'chunk_of',
  'next_chunk',
  'same_thread',
  'corroborated_by',
  'promoted_from',
] as const;
export type ImplicitRelationType = (typeof IMPLICIT_RELATION_TYPES)[number];
