/**
 * Parameterised statements on PGlite as one extended-protocol batch (Parse once, then Bind,
 * Describe, Execute, Sync) into a named statement cached per SQL text. PGlite's own `query` sends
 * an unnamed Parse, a Describe of the statement (to learn the parameter types) and four more
 * messages, each its own call into the engine, and parses and analyses the SQL anew every time;
 * here a repeated statement skips the parse and the analysis and crosses into the engine once.
 *
 * Parameters are sent as text with their types left to the server, as the `pg` driver sends them
 * (src/store/pg-driver.ts), so a statement binds the same values on both drivers; a byte array goes
 * in binary format, as `pg` sends a Buffer (vectors: src/store/vector-param.ts). The session
 * plans every execution with the values it gets (`plan_cache_mode = force_custom_plan`, set when
 * the database opens): a cached statement keeps the plan choices an unnamed one would make.
 */
import type { PGlite, Results } from '@electric-sql/pglite';
import { parse, protocol } from '@electric-sql/pglite';

/** Statements kept prepared in the session; the least recently used is closed past it. */
const PGLITE_STATEMENT_CACHE_SIZE = 200;

/** The session setting under which a cached statement is planned for its values, every time. */
export const CUSTOM_PLANS_SETUP = `SET plan_cache_mode = force_custom_plan`;

// A statement that vanished (DEALLOCATE) or whose result columns changed type under it (DDL).
const STATEMENT_GONE = new Set(['26000', '0A000']);

type Value = string | Uint8Array | null;

export class PgliteStatements {
  private readonly names = new Map<string, string>();
  /** Statements to close with the next batch: evicted, forgotten, or of a failed first Parse. */
  private readonly closing: string[] = [];
  private counter = 0;

  constructor(
    private readonly pglite: PGlite,
    private readonly capacity = PGLITE_STATEMENT_CACHE_SIZE,
  ) {}

  /** How many statements are cached (for tests). */
  get size(): number {
    return this.names.size;
  }

  /** Runs one statement; the caller holds PGlite's query lock (and the transaction lock outside a transaction). */
  async run(sql: string, params: readonly unknown[]): Promise<Results | undefined> {
    const cached = this.names.get(sql);
    const name = cached ?? `hyphae_${++this.counter}`;
    const messages: Uint8Array[] = this.closing.splice(0).map((n) => protocol.serialize.close({ type: 'S', name: n }));
    if (cached === undefined) messages.push(protocol.serialize.parse({ name, text: sql }));
    else this.touch(sql, name);
    messages.push(
      protocol.serialize.bind({ statement: name, values: params.map(toWire) }),
      protocol.serialize.describe({ type: 'P' }),
      protocol.serialize.execute({}),
      protocol.serialize.sync(),
    );
    let replies;
    try {
      replies = await this.pglite.execProtocolStream(concat(messages), { syncToFs: false });
    } catch (error) {
      // A first Parse that may or may not have created the statement: close it either way (closing a missing one is no error).
      if (cached === undefined) this.closing.push(name);
      else if (STATEMENT_GONE.has((error as { code?: unknown }).code as string)) this.forget(sql, name);
      throw error;
    }
    if (cached === undefined) this.remember(sql, name);
    return parse.parseResults(replies, this.pglite.parsers)[0];
  }

  /** Closes every cached statement with the next batch: after DDL, so no statement outlives a schema it was parsed against. */
  forgetAll(): void {
    for (const name of this.names.values()) this.closing.push(name);
    this.names.clear();
  }

  private touch(sql: string, name: string): void {
    this.names.delete(sql);
    this.names.set(sql, name);
  }

  private remember(sql: string, name: string): void {
    this.names.set(sql, name);
    if (this.names.size <= this.capacity) return;
    const [oldest] = this.names;
    if (oldest !== undefined) this.forget(oldest[0], oldest[1]);
  }

  private forget(sql: string, name: string): void {
    this.names.delete(sql);
    this.closing.push(name);
  }
}

/** A parameter as the `pg` driver sends it: a byte array in binary format, anything else as text. */
function toWire(value: unknown): Value {
  return value instanceof Uint8Array ? value : toText(value);
}

/** A parameter in PostgreSQL's text form, converted by its JS type as the `pg` driver does. */
function toText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Uint8Array) return `\\x${Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('hex')}`;
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

function arrayLiteral(values: readonly unknown[]): string {
  const items = values.map((v) => {
    if (v === null || v === undefined) return 'NULL';
    if (Array.isArray(v)) return arrayLiteral(v);
    const text = toText(v) ?? '';
    return `"${text.replace(/["\\]/g, '\\$&')}"`;
  });
  return `{${items.join(',')}}`;
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
