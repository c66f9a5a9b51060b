/** A database whose every statement's text is recorded (its transactions' too), to tell which statements a call ran. */
import type { Db, Queryable } from '../../src/store/db.js';

export function recording(db: Db): { db: Db; statements: string[] } {
  const statements: string[] = [];
  const recorded = <Q extends Db | Queryable>(target: Q): Q =>
    new Proxy(target, {
      get(t, property): unknown {
        if (property === 'query') return (sql: string, params?: readonly unknown[]) => (statements.push(sql), t.query(sql, params));
        if (property === 'transaction') {
          return (run: (tx: Queryable) => Promise<unknown>, options?: Parameters<Db['transaction']>[1]) => (t as Db).transaction((tx) => run(recorded(tx)), options);
        }
        const value: unknown = Reflect.get(t, property, t);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(t) : value;
      },
    });
  return { statements, db: recorded(db) };
}
