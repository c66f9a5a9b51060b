/**
 * Child process for lock tests: opens a PGlite data folder (optionally seeded from a dump), writes
 * a row when asked, prints "ready <pid>" and holds the folder until stdin closes or it is killed.
 * Usage: node --import tsx test/support/hold-data-dir.ts <dataDir> [templateDump] [lock-only]
 */
import { readFile } from 'node:fs/promises';
import { acquireDataDirLock } from '../../src/store/data-dir-lock.js';
import { openPgliteDb } from '../../src/store/pglite-driver.js';

const [dataDir, templatePath, mode] = process.argv.slice(2);
if (dataDir === undefined) throw new Error('usage: hold-data-dir.ts <dataDir> [templateDump] [lock-only]');

if (mode === 'lock-only') {
  const lock = await acquireDataDirLock(dataDir, { command: 'hyphae serve' });
  process.stdout.write(`ready ${process.pid}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void lock.release().then(() => process.exit(0)));
} else {
  const loadFrom = templatePath === undefined || templatePath === '' ? undefined : new Blob([await readFile(templatePath)]);
  const db = await openPgliteDb({ dataDir, lockCommand: 'hyphae serve', ...(loadFrom === undefined ? {} : { loadFrom }) });
  await db.query("INSERT INTO tenants (tenant_id) VALUES ('written-by-child') ON CONFLICT DO NOTHING");
  process.stdout.write(`ready ${process.pid}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => void db.close().then(() => process.exit(0)));
}
