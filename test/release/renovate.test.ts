// renovate.json keeps the Go tools the scripts build up to date only if each pinned version sits
// below a `# renovate:` line its regex manager reads. Here every version a script hands to the Go
// module proxy (`…@${VAR}`, `require … ${VAR}`) is found by that manager, with its module and value.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readRepoFile, repoRoot } from '../support/release-sources.js';

interface RenovateConfig {
  enabledManagers: string[];
  customManagers: Array<{ customType: string; managerFilePatterns: string[]; matchStrings: string[] }>;
}

interface Found {
  datasource: string;
  depName: string;
  currentValue: string;
}

const config = JSON.parse(readRepoFile('renovate.json')) as RenovateConfig;
const scripts = readdirSync(join(repoRoot, 'scripts'))
  .filter((f) => f.endsWith('.sh'))
  .map((f) => ({ path: `scripts/${f}`, text: readFileSync(join(repoRoot, 'scripts', f), 'utf8') }));

/** What Renovate's regex managers extract from a file (JavaScript's RegExp, Renovate's fallback engine). */
function extracted(path: string, text: string): Found[] {
  const found: Found[] = [];
  for (const manager of config.customManagers) {
    if (!manager.managerFilePatterns.some((p) => new RegExp(p.slice(1, -1)).test(path))) continue;
    for (const source of manager.matchStrings) {
      for (const m of text.matchAll(new RegExp(source, 'g'))) found.push({ ...(m.groups as unknown as Found) });
    }
  }
  return found;
}

/** Each Go module a script fetches at a version held in a variable: module path and variable. */
function goModulesAtVariables(text: string): Array<{ module: string; variable: string }> {
  const uses = [
    ...text.matchAll(/"?([a-z0-9][\w.-]*\.[a-z]{2,}\/[\w./${}-]*?)@\$\{([A-Z0-9_]+)\}/g),
    ...text.matchAll(/^require ([a-z0-9][\w.-]*\.[a-z]{2,}\/\S+) \$\{([A-Z0-9_]+)\}$/gm),
  ];
  return uses.map((m) => ({ module: m[1] as string, variable: m[2] as string }));
}

/** The literal default of `VAR="${OVERRIDE:-value}"` or `VAR="value"` in a script, if it sets one. */
function defaultOf(text: string, variable: string): string | undefined {
  return new RegExp(`^${variable}="(?:\\$\\{[A-Z0-9_]+:-)?([^"}$]+)\\}?"$`, 'm').exec(text)?.[1];
}

describe('renovate.json', () => {
  it('manages npm, GitHub Actions, the image files and the scripts', () => {
    expect(config.enabledManagers.sort()).toEqual(['custom.regex', 'dockerfile', 'github-actions', 'npm']);
  });

  it('finds every Go module version the scripts pin, with its module and value', () => {
    const uses = scripts.flatMap((s) => goModulesAtVariables(s.text).map((use) => ({ ...use, script: s })));
    // helm, etcd, kubernetes (apiserver and node binaries), CoreDNS, actionlint at least.
    expect(new Set(uses.map((u) => u.module)).size).toBeGreaterThanOrEqual(5);
    const missing: string[] = [];
    for (const { module, variable, script } of uses) {
      // The script's own setting, else (a sourced helper) every script that sets the variable.
      const setters = defaultOf(script.text, variable) !== undefined ? [script] : scripts.filter((s) => defaultOf(s.text, variable) !== undefined);
      expect(setters.length, `a script sets ${variable}`).toBeGreaterThan(0);
      for (const setter of setters) {
        const value = defaultOf(setter.text, variable);
        const hit = extracted(setter.path, setter.text).find((f) => f.currentValue === value && module.startsWith(f.depName));
        if (!hit || hit.datasource !== 'go') missing.push(`${setter.path}: ${variable}=${value} (${module})`);
      }
    }
    expect(missing, 'each needs a line `# renovate: datasource=go depName=<module>` right above it').toEqual([]);
  });
});
