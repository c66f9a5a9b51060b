/**
 * The README's configuration table is what users read: every default it names must be the one
 * the process applies. Setting a variable to its documented default must change nothing.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/core/config.js';
import { REPO_ROOT } from '../support/cli-process.js';

interface Row {
  readonly variable: string;
  readonly documented: string;
}

function configurationRows(): Row[] {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Configuration'));
  const rows: Row[] = [];
  for (const line of section.split('\n')) {
    // | `HYPHAE_X` | `default` | meaning |  (rows whose default is "—" have none)
    const match = /^\| `(HYPHAE_[A-Z_]+)` \| `([^`]*)` \|/.exec(line);
    if (match?.[1] !== undefined && match[2] !== undefined) rows.push({ variable: match[1], documented: match[2] });
    if (rows.length > 0 && !line.startsWith('|')) break;
  }
  return rows;
}

/** Variables loadConfig reads (a nonsense value is refused or changes the config). */
function readByLoadConfig(variable: string): boolean {
  try {
    return JSON.stringify(loadConfig({ [variable]: 'zz:not-a-value' })) !== JSON.stringify(loadConfig({}));
  } catch {
    return true;
  }
}

describe('README configuration table', () => {
  const rows = configurationRows();

  it('documents the defaults of the settings users change most', () => {
    expect(rows.map((r) => r.variable)).toEqual(expect.arrayContaining(['HYPHAE_HOST', 'HYPHAE_PORT', 'HYPHAE_DATA_DIR', 'HYPHAE_EMBEDDER', 'HYPHAE_LOG_LEVEL']));
  });

  it.each(rows.filter((row) => readByLoadConfig(row.variable)))('$variable defaults to `$documented`, as the README says', ({ variable, documented }) => {
    expect(loadConfig({ [variable]: documented })).toEqual(loadConfig({}));
  });
});
