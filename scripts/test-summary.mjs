#!/usr/bin/env node
// Prints CI's closing line "N passed, N failed[, N skipped]" from a Vitest JSON report. A test file
// that fails outside any test (it throws at load, e.g. a missing binary under HYPHAE_TEST_REQUIRE=all,
// or a failing hook) counts as one failed test: it ran nothing, so it proved nothing.
// Usage: node scripts/test-summary.mjs <report.json>
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2];
if (file === undefined || !existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(0);
}
const report = JSON.parse(readFileSync(file, 'utf8'));
const brokenFiles = (report.testResults ?? []).filter(
  (result) => result.status === 'failed' && !(result.assertionResults ?? []).some((test) => test.status === 'failed'),
);
for (const result of brokenFiles) {
  console.error(`failed outside any test: ${result.name}: ${(result.message ?? '').split('\n')[0]}`);
}
const failed = (report.numFailedTests ?? 0) + brokenFiles.length;
const skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
console.log(`${report.numPassedTests ?? 0} passed, ${failed} failed` + (skipped > 0 ? `, ${skipped} skipped` : ''));
