import { readFileSync } from 'node:fs';

/** The package version (MCP serverInfo, export headers); read once (package.json sits two or three levels up, from src or dist). */
function readPackageVersion(): string {
  for (const relative of ['../../package.json', '../../../package.json']) {
    try {
      const parsed: unknown = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8'));
      if (typeof parsed === 'object' && parsed !== null && 'name' in parsed && parsed.name === 'hyphae' && 'version' in parsed) {
        return String(parsed.version);
      }
    } catch {
      // Not at this level: try the next one.
    }
  }
  return '0.0.0';
}

export const PRODUCT_VERSION: string = readPackageVersion();
