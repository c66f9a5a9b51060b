/**
 * One environment variable, declared once: its name, how its text parses, its default (written as a
 * user would write it) and one line of documentation. Groups of settings make the configuration
 * schema; the configuration's type is inferred from them.
 */
import type { z } from 'zod';

export interface SettingSpec<T> {
  /** The variable's name: what a user sets and what an error message names. */
  readonly env: string;
  /** Parses the variable's text (or the default's) into the value. */
  readonly parse: z.ZodType<T>;
  /** One line for the configuration table (markdown). */
  readonly doc: string;
  /** The value when unset, as text; absent: the setting stays undefined when unset. */
  readonly default?: string;
}

export interface DefaultedSetting<T> extends SettingSpec<T> {
  readonly default: string;
}

export type Setting<T> = SettingSpec<T>;

export function setting<T>(spec: DefaultedSetting<T>): DefaultedSetting<T>;
export function setting<T>(spec: SettingSpec<T>): Setting<T>;
export function setting<T>(spec: SettingSpec<T>): Setting<T> {
  return spec;
}

export type SettingGroup = Readonly<Record<string, Setting<unknown>>>;

/** A defaulted setting is always set; any other may be undefined. */
export type SettingValue<S> = S extends DefaultedSetting<infer T> ? T : S extends Setting<infer T> ? T | undefined : never;

export type GroupValues<G extends SettingGroup> = { readonly [K in keyof G]: SettingValue<G[K]> };

export interface ConfigIssue {
  readonly path: string;
  readonly message: string;
}

/** Parses one group from the variables; each refused value adds an issue naming its variable. */
export function parseGroup<G extends SettingGroup>(group: G, env: Readonly<Record<string, string | undefined>>, issues: ConfigIssue[]): GroupValues<G> {
  const values: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(group)) {
    // An empty variable means unset, as shells and Kubernetes manifests often leave them.
    const text = env[spec.env] === '' ? undefined : env[spec.env];
    const source = text ?? spec.default;
    if (source === undefined) {
      values[key] = undefined;
      continue;
    }
    const parsed = spec.parse.safeParse(source);
    if (parsed.success) {
      values[key] = parsed.data;
      continue;
    }
    for (const issue of parsed.error.issues) {
      const path = [spec.env, ...issue.path.map(String)].join('.');
      issues.push({ path, message: `${path}: ${issue.message}` });
    }
  }
  return values as GroupValues<G>;
}
