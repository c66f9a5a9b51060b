/** What a facade scenario needs from the database it runs on: a TestRuntime is one; a native PostgreSQL test builds another. */
import type { Principal } from '../../src/core/principal.js';
import type { ManagedMemoryFacade } from '../../src/service/index.js';
import type { Db } from '../../src/store/db.js';
import type { PrincipalSpec } from './test-runtime.js';

export interface ScenarioHarness {
  readonly facade: ManagedMemoryFacade;
  readonly db: Db;
  /** Mints a key (default role writer) and answers its principal. */
  principal(spec: PrincipalSpec): Promise<Principal>;
}
