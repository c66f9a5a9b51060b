/** REST's include_superseded / as_of as the store's Validity, re-validated here so a surface cannot bypass the rule. */
import { InvalidArgumentError } from '../../core/errors.js';
import { validityInputSchema, type ValidityInput } from '../../core/schemas.js';
import type { Validity } from '../../store/cell-conditions.js';
import { parseInput } from './input-validation.js';

const CURRENT_VERSIONS: Validity = { kind: 'current' };

export function validityOf(raw: ValidityInput | undefined): Validity {
  // Every recall without REST's options comes here: the empty input's answer needs no parse.
  if (raw === undefined) return CURRENT_VERSIONS;
  const input = parseInput(validityInputSchema, raw);
  if (input.as_of !== undefined && input.include_superseded === true) {
    throw new InvalidArgumentError('as_of and include_superseded are alternatives; send one', [
      { path: 'as_of', message: 'cannot be combined with include_superseded' },
    ]);
  }
  if (input.as_of !== undefined) return { kind: 'at', asOf: input.as_of };
  return input.include_superseded === true ? { kind: 'all' } : CURRENT_VERSIONS;
}
