/** Parse rules shared by the settings: numbers, ports, lists, switches and URLs from a variable's text. */
import { z } from 'zod';

/** An integer from `min` to `max`. */
export const integer = (min: number, max?: number): z.ZodType<number> => {
  const atLeast = z.coerce.number().int().min(min);
  return max === undefined ? atLeast : atLeast.max(max);
};

export const port = integer(0, 65535);

/** A comma-separated list; blanks around items and empty items are dropped. */
export const csv = z
  .string()
  .transform((value) => value.split(',').map((item) => item.trim()).filter((item) => item.length > 0));

/** `on`/`off` (or `1`/`0`, `true`/`false`). */
export const onOff = z.enum(['on', 'off', '1', '0', 'true', 'false']).transform((v) => v === 'on' || v === '1' || v === 'true');

/** `1`/`0` (or `true`/`false`). */
export const oneZero = z.enum(['1', '0', 'true', 'false']).transform((v) => v === '1' || v === 'true');

export const urlString = (protocols: readonly string[]): z.ZodType<string> =>
  z.string().refine((value) => {
    try {
      return protocols.includes(new URL(value).protocol);
    } catch {
      return false;
    }
  }, `must be a URL with scheme ${protocols.join(' or ')}`);
