/** `hyphae operator`: the Kubernetes operator, the same entry as `tsx operator/src/main.ts`. */
import { runOperatorCli } from '../../operator/src/operator-cli.js';

export async function runOperatorCommand(argv: readonly string[]): Promise<void> {
  await runOperatorCli(argv);
}
