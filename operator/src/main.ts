// Entry point: `tsx operator/src/main.ts [flags]` (see operator-cli.ts); `hyphae operator` runs
// the same CLI. Exits once SIGTERM/SIGINT has stopped the operator and released its Lease.
import { runOperatorCli } from './operator-cli.js';

try {
  await runOperatorCli(process.argv.slice(2));
  process.exit(process.exitCode ?? 0);
} catch (err) {
  process.stderr.write(`hyphae operator: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
}
