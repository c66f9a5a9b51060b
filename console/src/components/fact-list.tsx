/** A page's facts as name/value pairs (a description list). */
import type { JSX } from 'preact';

export function FactList({ rows }: { readonly rows: readonly (readonly [string, JSX.Element | string])[] }): JSX.Element {
  return (
    <dl class="facts">
      {rows.map(([name, value]) => (
        <div key={name}>
          <dt>{name}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
}
