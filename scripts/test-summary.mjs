#!/usr/bin/env node
// Prints CI's closing line "N passed, N failed[, N skipped]" from a Vitest JSON report. A test file
// that fails outside any test (it throws at load, e.g. a missing binary under HYPHAE_TEST_REQUIRE=all,
// or a failing hook) counts as one failed test: it ran nothing, so it proved nothing.
// Each failed test is named above that line, with the first line of its error, so that the tail of a
// CI log says which test failed and why.
// Usage: node scripts/test-summary.mjs <report.json>… (several reports are summed; a missing one is a failure)
import { existsSync, readFileSync } from 'node:fs';

let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of process.argv.slice(2)) {
  if (!existsSync(file)) {
    console.error(`no test report at ${file}: the runner did not finish`);
    failed += 1;
    continue;
  }
  const report = JSON.parse(readFileSync(file, 'utf8'));
  const brokenFiles = (report.testResults ?? []).filter(
    (result) => result.status === 'failed' && !(result.assertionResults ?? []).some((test) => test.status === 'failed'),
  );
  for (const result of report.testResults ?? []) {
    for (const test of result.assertionResults ?? []) {
      if (test.status !== 'failed') continue;
      const reason = (test.failureMessages ?? [])[0]?.split('\n')[0] ?? '';
      console.error(`failed: ${result.name} > ${test.fullName ?? test.title}: ${reason.slice(0, 500)}`);
    }
  }
  for (const result of brokenFiles) {
    console.error(`failed outside any test: ${result.name}: ${(result.message ?? '').split('\n')[0]}`);
  }
  passed += report.numPassedTests ?? 0;
  failed += (report.numFailedTests ?? 0) + brokenFiles.length;
  skipped += (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
if (process.argv.length <= 2) failed += 1;
console.log(`${passed} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : ''));
