/**
 * The WHERE of a statement: conditions joined by AND, each value bound as the next $n after the
 * parameters the statement already has. The repositories build every filtered read with it.
 */
export class SqlConditions {
  readonly params: unknown[];
  private readonly conditions: string[];

  constructor(params: readonly unknown[], conditions: readonly string[]) {
    this.params = [...params];
    this.conditions = [...conditions];
  }

  /** `clause($n)` with value bound as $n; no condition when the value is undefined (that filter is off). */
  add(clause: (n: number) => string, value: unknown): this {
    if (value !== undefined) this.conditions.push(clause(this.bind(value)));
    return this;
  }

  /** A condition written against $n placeholders already bound. */
  addRaw(condition: string): this {
    this.conditions.push(condition);
    return this;
  }

  /** Binds one more value (a LIMIT, a keyset position) and returns its $n. */
  bind(value: unknown): number {
    this.params.push(value);
    return this.params.length;
  }

  get sql(): string {
    return this.conditions.join(' AND ');
  }
}
