/**
 * Resolves after the first SIGTERM or SIGINT has run `stop` to completion. While stopping, a
 * repeated SIGTERM is ignored (supervisors and wrappers such as `timeout` may forward it twice),
 * but a SIGINT exits at once: a person pressed Ctrl-C again.
 */
export function onShutdownSignal(stop: (signal: NodeJS.Signals) => Promise<void>): Promise<void> {
  return new Promise((resolve) => {
    let stopping = false;
    const handle = (signal: NodeJS.Signals): void => {
      if (stopping) {
        if (signal === 'SIGINT') {
          process.stderr.write('hyphae: interrupted again, exiting without a clean shutdown\n');
          process.exit(130);
        }
        return;
      }
      stopping = true;
      stop(signal)
        .catch((error: unknown) => {
          process.stderr.write(`hyphae: shutdown failed: ${error instanceof Error ? error.message : String(error)}\n`);
          process.exitCode = 1;
        })
        .finally(() => {
          process.off('SIGTERM', handle);
          process.off('SIGINT', handle);
          resolve();
        });
    };
    process.on('SIGTERM', handle);
    process.on('SIGINT', handle);
  });
}
