/**
 * Identifier-like tokens of a text: error codes (E4012, ERR_CONN_RESET, 40P01), ticket ids
 * (PLAT-2291, CVE-2024-3094, #inc-payments), paths and file names (src/billing/retry-policy.ts,
 * values.yaml), dotted names and versions (orders.v3.created, 1.21.0), CamelCase and snake_case
 * names (OrderReconciler, customer_tier) — the words a full-text stemmer breaks apart and a
 * sentence embedding blurs, matched exactly and case-insensitively. The store indexes the same
 * tokens with the SQL function hyphae_identifiers (migration 0011), which follows these rules
 * rule for rule; test/store/identifier-tokens-parity.test.ts holds the two equal.
 */

/** What separates words (a `%` too: "99.9%" is the version-like 99.9); `.` `:` `/` `-` `_` `#` stay inside a word. */
const WORD_SEPARATORS = /[\s,;!?()<>{}"'`|=*%[\]]+/;
const EDGE_PUNCTUATION = /^[.:]+|[.:]+$/g;
/** The file name at the end of a path (`src/a/retry-policy.ts` → `retry-policy.ts`). */
const PATH_FILE_NAME = /\/([^/]+\.[A-Za-z0-9]+)[.:]*$/;

const IDENTIFIER_RULES: readonly ((token: string) => boolean)[] = [
  (t) => /^[A-Za-z0-9]+(_[A-Za-z0-9]+)+$/.test(t),
  (t) => /^[A-Za-z0-9#][A-Za-z0-9._:/#-]*$/.test(t) && /[A-Za-z]/.test(t) && /[0-9]/.test(t),
  (t) => t.includes('/') && /[A-Za-z]/.test(t),
  (t) => /^[A-Za-z0-9_-]{2,}(\.[A-Za-z0-9_-]+)+$/.test(t) && /[A-Za-z]/.test(t),
  (t) => /^v?[0-9]+(\.[0-9]+)+$/.test(t),
  (t) => /[a-z][A-Z]/.test(t),
  (t) => /^#[A-Za-z0-9][A-Za-z0-9_-]*$/.test(t),
  (t) => /^[A-Za-z0-9]+(-[A-Za-z0-9]+)+$/.test(t) && /-[A-Za-z0-9]*[A-Z]/.test(t),
];

/** Printable ASCII only, so lower-casing means the same in every database locale. */
function isIdentifier(token: string): boolean {
  return token.length >= 2 && token.length <= 128 && /^[!-~]+$/.test(token) && IDENTIFIER_RULES.some((rule) => rule(token));
}

/** The text's identifier tokens, lower-cased, each once, in code-point order. */
export function identifierTokens(text: string): string[] {
  const found = new Set<string>();
  for (const word of text.split(WORD_SEPARATORS)) {
    const candidates = [word.replace(EDGE_PUNCTUATION, ''), PATH_FILE_NAME.exec(word)?.[1]];
    for (const token of candidates) if (token !== undefined && isIdentifier(token)) found.add(token.toLowerCase());
  }
  return [...found].sort();
}
