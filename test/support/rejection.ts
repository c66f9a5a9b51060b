/** The error a promise rejects with, for asserting on its class and message; fails if it resolves. */
export async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  const outcome = await promise.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!(outcome instanceof Error)) throw new Error(outcome === undefined ? 'expected a rejection, but the promise resolved' : `rejected with a non-Error: ${String(outcome)}`);
  return outcome;
}
