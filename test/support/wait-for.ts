/** Polls a condition until it holds; the deadline only stops a broken test from polling forever. */
export async function waitFor(condition: () => boolean | Promise<boolean>, pollMs = 20, deadlineMs = 45_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    if (await condition()) return;
    if (Date.now() > deadline) throw new Error('condition never held');
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}
