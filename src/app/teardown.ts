/**
 * What a composition has opened so far, closed in reverse: on close, and when a later step of the
 * start fails. Every step runs even when an earlier one fails; the first failure is rethrown.
 */
export class Teardown {
  private readonly steps: (() => Promise<void>)[] = [];

  /** Registers how to close what was just opened. */
  add(close: () => Promise<void>): void {
    this.steps.push(close);
  }

  async run(): Promise<void> {
    let failure: { error: unknown } | undefined;
    for (const close of this.steps.splice(0).reverse()) {
      try {
        await close();
      } catch (error) {
        failure ??= { error };
      }
    }
    if (failure !== undefined) throw failure.error;
  }

  /** After a failed start: closes everything without masking the error that stopped it. */
  async abandon(): Promise<void> {
    await this.run().catch(() => undefined);
  }
}
