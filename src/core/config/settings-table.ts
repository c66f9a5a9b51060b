/**
 * The configuration table of the README, made from the schema (`npm run docs:config` writes it
 * between the markers; test/ci/config-docs.test.ts fails when the README differs).
 */
import { CONFIG_SCHEMA } from './config-schema.js';

export const SETTINGS_TABLE_START = '<!-- settings-table:start — generated from src/core/config/ by `npm run docs:config`; edit the schema, not this table -->';
export const SETTINGS_TABLE_END = '<!-- settings-table:end -->';

export interface SettingRow {
  readonly env: string;
  /** The default as text; undefined when unset means none (the meaning says what then). */
  readonly default: string | undefined;
  readonly group: string;
  /** Where the value is in the parsed configuration: `group.name`. */
  readonly path: string;
  readonly doc: string;
}

export function settingRows(): SettingRow[] {
  return Object.entries(CONFIG_SCHEMA).flatMap(([group, settings]) =>
    Object.entries(settings).map(([name, spec]) => ({ env: spec.env, default: spec.default, group, path: `${group}.${name}`, doc: spec.doc })),
  );
}

/** The markdown table, markers included. */
export function renderSettingsTable(rows: readonly SettingRow[] = settingRows()): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  const lines = rows.map((row) => {
    const fallback = row.default === undefined || row.default === '' ? '—' : `\`${row.default}\``;
    return `| \`${row.env}\` | ${fallback} | \`${row.path}\` | ${cell(row.doc)} |`;
  });
  return [SETTINGS_TABLE_START, '| variable | default | group.setting | meaning |', '|---|---|---|---|', ...lines, SETTINGS_TABLE_END].join('\n');
}

/** The document with its table between the markers replaced; undefined when the markers are missing. */
export function withSettingsTable(document: string, table: string = renderSettingsTable()): string | undefined {
  const start = document.indexOf(SETTINGS_TABLE_START);
  const end = document.indexOf(SETTINGS_TABLE_END);
  if (start === -1 || end === -1 || end < start) return undefined;
  return `${document.slice(0, start)}${table}${document.slice(end + SETTINGS_TABLE_END.length)}`;
}
