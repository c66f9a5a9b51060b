// `npm run docs:config`: writes the configuration table (every setting of src/core/config/: variable,
// default, group, meaning) into README.md between its markers. test/ci/config-docs.test.ts checks it is current.
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SETTINGS_TABLE_END, SETTINGS_TABLE_START, withSettingsTable } from '../src/core/config/settings-table.js';

const README = fileURLToPath(new URL('../README.md', import.meta.url));
const current = readFileSync(README, 'utf8');
const updated = withSettingsTable(current);
if (updated === undefined) {
  process.stderr.write(`README.md lacks the markers ${SETTINGS_TABLE_START} … ${SETTINGS_TABLE_END}\n`);
  process.exit(1);
}
if (updated === current) {
  process.stdout.write('README.md: the configuration table is current\n');
} else {
  writeFileSync(README, updated);
  process.stdout.write('README.md: the configuration table was rewritten from src/core/config/\n');
}
