/**
 * The README's configuration table is generated from the schema (src/core/config/): this fails when
 * a setting was added, renamed or redocumented without `npm run docs:config`, and proves the table
 * lists every setting once.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderSettingsTable, settingRows, SETTINGS_TABLE_END, SETTINGS_TABLE_START } from '../../src/core/config/settings-table.js';

const README = fileURLToPath(new URL('../../README.md', import.meta.url));

function tableInReadme(): string {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf(SETTINGS_TABLE_START);
  const end = readme.indexOf(SETTINGS_TABLE_END);
  expect(start, `README.md lacks ${SETTINGS_TABLE_START}`).toBeGreaterThanOrEqual(0);
  expect(end, `README.md lacks ${SETTINGS_TABLE_END}`).toBeGreaterThan(start);
  return readme.slice(start, end + SETTINGS_TABLE_END.length);
}

describe('the configuration table in README.md', () => {
  it('is the one the schema makes (run `npm run docs:config` after changing a setting)', () => {
    expect(tableInReadme(), 'README.md\'s configuration table is stale: run `npm run docs:config` and commit README.md').toBe(renderSettingsTable());
  });

  it('lists each variable once, each with a meaning', () => {
    const rows = settingRows();
    expect(new Set(rows.map((row) => row.env)).size).toBe(rows.length);
    for (const row of rows) expect(row.doc.trim(), row.env).not.toBe('');
    expect(rows.map((row) => row.env)).toEqual(expect.arrayContaining(['HYPHAE_HOST', 'HYPHAE_API_KEY', 'HYPHAE_WORKER_PORT', 'HYPHAE_EMBED_API_KEY']));
  });

  it('notices a stale row', () => {
    const stale = renderSettingsTable(settingRows().map((row) => (row.env === 'HYPHAE_PORT' ? { ...row, default: '8080' } : row)));
    expect(stale).not.toBe(tableInReadme());
  });
});
