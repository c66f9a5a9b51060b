/** Paired runs: every side once per round, the order rotating each round, so drift, warm-up and machine load fall on all sides alike. */

export interface AlternateOptions {
  /** Untimed runs of every side before the first round. */
  readonly warmup?: number;
  /** Runs after each side's turn (e.g. flushing background work so no side pays for another's). */
  readonly between?: () => Promise<void>;
}

/** The order of `sides` in round `round`: rotated by the round number. */
export function rotation<K>(sides: readonly K[], round: number): K[] {
  const shift = round % Math.max(1, sides.length);
  return [...sides.slice(shift), ...sides.slice(0, shift)];
}

/** Runs each side `rounds` times, in rotating order; each side's results in round order. */
export async function alternate<K extends string, T>(
  sides: Readonly<Record<K, (round: number) => Promise<T>>>,
  rounds: number,
  options: AlternateOptions = {},
): Promise<Record<K, T[]>> {
  const names = Object.keys(sides) as K[];
  for (let i = 0; i < (options.warmup ?? 0); i += 1) {
    for (const name of names) await sides[name](-1 - i);
    await options.between?.();
  }
  const results = Object.fromEntries(names.map((name) => [name, [] as T[]])) as Record<K, T[]>;
  for (let round = 0; round < rounds; round += 1) {
    for (const name of rotation(names, round)) {
      results[name].push(await sides[name](round));
      await options.between?.();
    }
  }
  return results;
}
