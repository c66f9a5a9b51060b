/** Names for the pg driver's prepared statements. */
import { createHash } from 'node:crypto';

/**
 * The name of each statement text prepared so far: a digest of the text, so one name means one text
 * in every process that could share a server session. At most `limit` texts get one.
 */
export class StatementNames {
  private readonly names = new Map<string, string>();
  private disabled = false;

  constructor(private readonly limit: number) {}

  nameOf(sql: string): string | undefined {
    if (this.disabled) return undefined;
    const known = this.names.get(sql);
    if (known !== undefined || this.names.size >= this.limit) return known;
    const name = `hyphae_${createHash('sha256').update(sql).digest('hex').slice(0, 32)}`;
    this.names.set(sql, name);
    return name;
  }

  /** From now on every statement goes unnamed. */
  disable(): void {
    this.disabled = true;
  }
}
