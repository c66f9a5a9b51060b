/**
 * What PostgreSQL can store, checked before it is asked to: no NUL character (text and jsonb
 * refuse it), no unpaired UTF-16 surrogate (jsonb refuses it, text silently turns it into U+FFFD),
 * JSON nested no deeper than MAX_JSON_DEPTH (serialising deeper values overflows the stack), and
 * timestamps that name a real instant in years 1–9999 with an offset PostgreSQL accepts (±15:59);
 * and the one rule for an agent's name, wherever one enters.
 */
export const MAX_JSON_DEPTH = 32;

const NUL = '\u0000';
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** A string PostgreSQL stores as written. */
export function isStorableText(text: string): boolean {
  return !text.includes(NUL) && !LONE_SURROGATE.test(text);
}

export const STORABLE_TEXT_MESSAGE = 'must not contain NUL characters or unpaired UTF-16 surrogates';

/**
 * The first problem of a JSON value (depth, or a key or string that is not storable text), or
 * null. Iterative, so a value nested thousands deep is refused instead of overflowing the stack.
 */
export function jsonValueProblem(value: unknown): string | null {
  const pending: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const { value: current, depth } = next;
    if (typeof current === 'string') {
      if (!isStorableText(current)) return `a string ${STORABLE_TEXT_MESSAGE}`;
      continue;
    }
    if (current === null || typeof current !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return `nested deeper than ${MAX_JSON_DEPTH} levels`;
    const entries = Array.isArray(current) ? current.map((item): [string, unknown] => ['', item]) : Object.entries(current);
    for (const [key, item] of entries) {
      if (!isStorableText(key)) return `a key ${STORABLE_TEXT_MESSAGE}`;
      pending.push({ value: item, depth: depth + 1 });
    }
  }
  return null;
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|([+-])(\d{2}):(\d{2}))$/;

/** True when an RFC 3339 timestamp names a real date and time PostgreSQL's timestamptz accepts. */
export function isStorableTimestamp(text: string): boolean {
  const match = RFC3339.exec(text);
  if (match === null) return false;
  const [year, month, day, hour, minute, second] = match.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  if (year < 1 || month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return false;
  const daysInMonth = new Date(Date.UTC(2000, month, 0)).getUTCDate() - (month === 2 && !isLeapYear(year) ? 1 : 0);
  if (day < 1 || day > daysInMonth) return false;
  if (match[9] !== undefined) {
    const offsetHours = Number(match[10]);
    const offsetMinutes = Number(match[11]);
    if (offsetHours > 15 || offsetMinutes > 59) return false;
  }
  return true;
}

function isLeapYear(year: number): boolean {
  return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
}

/**
 * An agent's name, the one rule for keys, OAuth claims, imports and filters: 1–128 letters, digits
 * and `._@:|+-` (identity providers' subjects carry `|` and `+`) — no spaces, newlines or other
 * control characters, so a name shown to another agent (a channel event, a diff) can never pose as
 * text of its own. It admits every name the earlier rules of keys and tokens admitted.
 */
const AGENT_NAME = /^[A-Za-z0-9._@:|+-]{1,128}$/;

export const AGENT_NAME_MESSAGE = 'must be 1-128 letters, digits or ._@:|+- (no spaces, newlines or control characters)';

export function isAgentName(value: unknown): value is string {
  return typeof value === 'string' && AGENT_NAME.test(value);
}
