/**
 * Ends a run that skipped tiers with a summary naming each one, what it lacked, how many tests it
 * skipped, and the one command that provisions them (test-tiers.ts): a partial suite never passes
 * for the whole. The skipping files' marker lines arrive as console logs; counts come from the run.
 */
import type { UserConsoleLog } from 'vitest';
import type { Reporter, TestModule, Vitest } from 'vitest/node';
import { parseSkipMarker, PROVISION_COMMAND, TEST_TIERS, type TestTier } from './test-tiers.js';

interface TierSkip {
  readonly tier: TestTier;
  readonly missing: string;
}

interface TierCount {
  readonly missing: string;
  files: number;
  tests: number;
}

export class SkippedTiersReporter implements Reporter {
  private vitest: Vitest | undefined;
  private readonly markers: { readonly taskId: string | undefined; readonly skip: TierSkip }[] = [];

  onInit(vitest: Vitest): void {
    this.vitest = vitest;
  }

  onUserConsoleLog(log: UserConsoleLog): void {
    const skip = parseSkipMarker(log.content);
    if (skip !== undefined) this.markers.push({ taskId: log.taskId, skip });
  }

  onTestRunEnd(testModules: readonly TestModule[]): void {
    const text = skippedTiersSummary(this.countByTier(testModules));
    if (text === '') return;
    if (this.vitest === undefined) process.stdout.write(text);
    else this.vitest.logger.log(text);
  }

  private countByTier(testModules: readonly TestModule[]): Map<TestTier, TierCount> {
    // A file that skips for two tiers (nats || postgres) counts for the first it logged.
    const tierOfModule = new Map<string, TierSkip>();
    const counts = new Map<TestTier, TierCount>();
    for (const { taskId, skip } of this.markers) {
      if (!counts.has(skip.tier)) counts.set(skip.tier, { missing: skip.missing, files: 0, tests: 0 });
      const moduleId = taskId === undefined ? undefined : this.moduleIdOf(taskId);
      if (moduleId !== undefined && !tierOfModule.has(moduleId)) tierOfModule.set(moduleId, skip);
    }
    for (const testModule of testModules) {
      const skip = tierOfModule.get(testModule.id);
      const count = skip === undefined ? undefined : counts.get(skip.tier);
      if (count === undefined) continue;
      count.files += 1;
      count.tests += [...testModule.children.allTests('skipped')].length;
    }
    return counts;
  }

  private moduleIdOf(taskId: string): string | undefined {
    const entity = this.vitest?.state.getReportedEntityById(taskId);
    if (entity === undefined) return taskId.split('_')[0];
    return entity.type === 'module' ? entity.id : entity.module.id;
  }
}

function skippedTiersSummary(counts: ReadonlyMap<TestTier, TierCount>): string {
  if (counts.size === 0) return '';
  const order = Object.keys(TEST_TIERS);
  const lines = [...counts].sort(([a], [b]) => order.indexOf(a) - order.indexOf(b)).map(([tier, count]) => {
    const tests = `${count.tests} test${count.tests === 1 ? '' : 's'} in ${count.files} file${count.files === 1 ? '' : 's'}`;
    return `   ${TEST_TIERS[tier]}\n     skipped ${tests}: ${count.missing} not found`;
  });
  return [
    '',
    ` Skipped tiers: this run is NOT the whole suite (${counts.size} tier${counts.size === 1 ? '' : 's'} lacked a binary)`,
    ...lines,
    ` Provision every tier (into ~/.cache/hyphae; as root it also installs Debian's chromium), then run npm test again:`,
    `   ${PROVISION_COMMAND}`,
    '',
  ].join('\n');
}
