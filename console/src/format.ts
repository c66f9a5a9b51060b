/** How the console writes numbers and instants for people. */
const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });

export function formatInstant(iso: string | null | undefined): string {
  if (iso === null || iso === undefined) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : dateTime.format(date);
}

export function formatNumber(value: number, digits = 3): string {
  return Number.isInteger(value) ? String(value) : Number(value.toPrecision(digits)).toString();
}

/** The first line of a text, cut at `max` characters: a preview, never markup. */
export function preview(text: string, max = 140): string {
  const line = text.split('\n', 1)[0] ?? '';
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
