/**
 * The one poll of the tests: every test that waits for something to happen waits with `waitFor`.
 * A deadline only stops a broken test from polling forever; no test asserts how long a wait took.
 */

/**
 * Polls `condition` until it holds. A condition that throws fails the wait at once.
 *
 * Or, given what it waits for: polls `probe` until it returns something other than `undefined` or
 * `false`, and returns that; a probe that throws counts as "not yet" (a resource not created yet),
 * and the deadline's error names what never happened with the last error.
 */
export function waitFor(condition: () => boolean | Promise<boolean>, pollMs?: number, deadlineMs?: number): Promise<void>;
export function waitFor<T>(what: string, probe: () => T | undefined | false | Promise<T | undefined | false>, deadlineMs?: number, pollMs?: number): Promise<T>;
export async function waitFor<T>(
  first: string | (() => boolean | Promise<boolean>),
  second?: number | (() => T | undefined | false | Promise<T | undefined | false>),
  third?: number,
  fourth?: number,
): Promise<T | void> {
  if (typeof first === 'function') {
    await poll(async () => ((await first()) ? true : undefined), { what: undefined, pollMs: asNumber(second) ?? 20, deadlineMs: third ?? 45_000 });
    return;
  }
  if (typeof second !== 'function') throw new TypeError(`waitFor('${first}') needs a probe`);
  return poll(second, { what: first, pollMs: fourth ?? 100, deadlineMs: third ?? 30_000 });
}

interface Poll {
  /** Named waits retry a probe that throws; unnamed ones fail at once. */
  readonly what: string | undefined;
  readonly pollMs: number;
  readonly deadlineMs: number;
}

async function poll<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, { what, pollMs, deadlineMs }: Poll): Promise<T> {
  const deadline = Date.now() + deadlineMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await probe();
      if (value !== undefined && value !== false) return value;
    } catch (error) {
      if (what === undefined) throw error;
      last = error;
    }
    if (Date.now() > deadline) {
      throw new Error(what === undefined ? 'condition never held' : `timed out waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function asNumber(value: unknown): number | undefined {
  return typeof value === 'number' ? value : undefined;
}
