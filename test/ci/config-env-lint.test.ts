/**
 * The configuration lint rule of eslint.config.js, through ESLint's own API on the repository's
 * config: a `process.env` read outside the configuration fails lint naming where settings are
 * read; inside the configuration (and in the operator's entry point) it passes.
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

async function envErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-properties').map((message) => message.message);
}

const MEMBER_READ = 'export const port = process.env.HYPHAE_PORT;\n';
const DESTRUCTURED = 'const { env } = process;\nexport const key = env.HYPHAE_API_KEY;\n';

describe('the configuration lint rule', () => {
  it.each([
    ['src/cli/serve-command.ts', MEMBER_READ],
    ['src/embed/create-embedder.ts', MEMBER_READ],
    ['src/mcp/transports/stdio-server.ts', DESTRUCTURED],
    ['src/core/oauth-config.ts', MEMBER_READ],
    ['src/core/configuration-helper.ts', MEMBER_READ],
    ['operator/src/reconcile/api-deployment.ts', MEMBER_READ],
  ])('refuses a process.env read in %s', async (path, code) => {
    const errors = await envErrors(path, code);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain('read settings through the configuration (src/core/config/');
  });

  it.each([
    ['src/core/config.ts', MEMBER_READ],
    ['src/core/config/server-settings.ts', MEMBER_READ],
    ['src/core/config/server-settings.ts', DESTRUCTURED],
    ['operator/src/operator-cli.ts', MEMBER_READ],
    ['src/service/portability/dump-source.test.ts', MEMBER_READ],
  ])('lets %s read process.env', async (path, code) => {
    expect(await envErrors(path, code)).toEqual([]);
  });
});
