/**
 * NATS subject matching, so the in-process bus keeps the NATS semantics: tokens are separated
 * by '.', '*' matches exactly one token and '>' (last token only) matches one or more tokens.
 */
export function subjectMatches(pattern: string, subject: string): boolean {
  const patternTokens = pattern.split('.');
  const subjectTokens = subject.split('.');
  for (let i = 0; i < patternTokens.length; i += 1) {
    const token = patternTokens[i];
    if (token === '>') return i === patternTokens.length - 1 && subjectTokens.length > i;
    const actual = subjectTokens[i];
    if (actual === undefined) return false;
    if (token !== '*' && token !== actual) return false;
  }
  return patternTokens.length === subjectTokens.length;
}

/** A publish subject must be concrete: no empty token and no wildcard. */
export function isValidPublishSubject(subject: string): boolean {
  return subject.split('.').every((token) => token.length > 0 && token !== '*' && token !== '>' && !/\s/.test(token));
}

/** A subscription pattern: no empty token, no whitespace, '>' only as the last token. */
export function isValidSubscribePattern(pattern: string): boolean {
  const tokens = pattern.split('.');
  return tokens.every(
    (token, i) => token.length > 0 && !/\s/.test(token) && (token !== '>' || i === tokens.length - 1),
  );
}
