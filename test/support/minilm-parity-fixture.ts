/**
 * The MiniLM parity fixture (test/embed/fixtures/minilm-parity-fixture.json) and its reference
 * vectors (minilm-parity-reference.json, from sentence-transformers: scripts/minilm-parity-reference.sh),
 * and the walk the parity tests take through the memory facade: store every memory, recall every
 * question, and note which memory each recall ranks first. The embed bench reads the fixture too.
 */
import { readFile } from 'node:fs/promises';
import type { SearchMode } from '../../src/core/cell-types.js';
import type { Principal } from '../../src/core/principal.js';
import type { MemoryFacade } from '../../src/service/index.js';

interface FixtureFile {
  readonly memories: readonly string[];
  readonly questions: readonly { readonly text: string; readonly answer: number }[];
  readonly edge: readonly { readonly label: string; readonly text: string }[];
}

interface ReferenceEntry {
  readonly text: string;
  readonly vector: string;
  readonly top1?: number;
}

interface ReferenceFile {
  readonly memories: readonly ReferenceEntry[];
  readonly questions: readonly ReferenceEntry[];
  readonly edge: readonly ReferenceEntry[];
}

export interface ParityText {
  readonly text: string;
  /** The reference implementation's vector (unit length). */
  readonly reference: Float32Array;
}

export interface ParityFixture {
  readonly memories: readonly string[];
  readonly questions: readonly { readonly text: string; readonly answer: number; readonly referenceTop1: number }[];
  /** Every text of the fixture — memories, questions, edge cases — with its reference vector. */
  readonly texts: readonly ParityText[];
}

const FIXTURES = new URL('../embed/fixtures/', import.meta.url);

function decoded(base64: string): Float32Array {
  const bytes = Buffer.from(base64, 'base64');
  const out = new Float32Array(bytes.byteLength / 4);
  for (let i = 0; i < out.length; i++) out[i] = bytes.readFloatLE(4 * i);
  return out;
}

/** Reads both files and checks that the reference holds exactly the fixture's texts, in order (regenerate it when the fixture changes). */
export async function loadParityFixture(): Promise<ParityFixture> {
  const fixture = JSON.parse(await readFile(new URL('minilm-parity-fixture.json', FIXTURES), 'utf8')) as FixtureFile;
  const reference = JSON.parse(await readFile(new URL('minilm-parity-reference.json', FIXTURES), 'utf8')) as ReferenceFile;
  const pairs: [string, ReferenceEntry | undefined][] = [
    ...fixture.memories.map((text, i): [string, ReferenceEntry | undefined] => [text, reference.memories[i]]),
    ...fixture.questions.map((q, i): [string, ReferenceEntry | undefined] => [q.text, reference.questions[i]]),
    ...fixture.edge.map((e, i): [string, ReferenceEntry | undefined] => [e.text, reference.edge[i]]),
  ];
  const texts = pairs.map(([text, entry]) => {
    if (entry?.text !== text) throw new Error(`minilm-parity-reference.json does not match the fixture at ${JSON.stringify(text.slice(0, 40))}: run scripts/minilm-parity-reference.sh`);
    return { text, reference: decoded(entry.vector) };
  });
  const questions = fixture.questions.map((q, i) => {
    const top1 = reference.questions[i]?.top1;
    if (top1 === undefined) throw new Error(`minilm-parity-reference.json has no top1 for question ${i}`);
    return { ...q, referenceTop1: top1 };
  });
  return { memories: fixture.memories, questions, texts };
}

/** Stores the memories (one cell each: the caller's facade must not merge restatements) and returns memory index by node id. */
export async function storeMemories(facade: MemoryFacade, principal: Principal, memories: readonly string[]): Promise<Map<string, number>> {
  const indexOf = new Map<string, number>();
  for (const [i, content] of memories.entries()) {
    const stored = await facade.store(principal, { content, cell_type: 'Fact', salience: 0.5 });
    if (stored.reinforced) throw new Error(`memory ${i} reinforced another cell: the facade must store every memory as its own cell`);
    indexOf.set(stored.node_id, i);
  }
  return indexOf;
}

/** The memory each question's recall in `mode` ranks first (-1 when it returns none). */
export async function recallTop1(facade: MemoryFacade, principal: Principal, indexOf: ReadonlyMap<string, number>, questions: readonly { readonly text: string }[], mode: SearchMode): Promise<number[]> {
  const firsts: number[] = [];
  for (const question of questions) {
    const { results } = await facade.recall(principal, { query: question.text, k: 10, mode });
    const first = results[0];
    firsts.push(first === undefined ? -1 : (indexOf.get(first.node_id) ?? -1));
  }
  return firsts;
}
