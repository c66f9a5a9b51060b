import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layering: which of our folders under src/ each folder may import besides itself (surfaces —
 * mcp, http, grpc, a2a, console — never each other; they share src/surface-shared). Anything else under
 * src/ is refused, for folders yet to exist as well; `cli` may import anything. A relative import
 * leaves a file's folder with exactly as many `../` as the file is deep, so each depth gets its own
 * pattern and a subfolder never passes for a top-level one. test/ci/layering-lint.test.ts proves it.
 */
const SURFACE_IMPORTS = ['core', 'service', 'surface-shared', 'metrics'];
const LAYERS = {
  core: [],
  store: ['core'],
  embed: ['core'],
  knowledge: ['core'],
  mesh: ['core', 'store'],
  auth: ['core', 'store'],
  service: ['core', 'store', 'embed', 'mesh', 'auth', 'knowledge'],
  metrics: ['core'],
  'surface-shared': ['core', 'service', 'auth', 'metrics'],
  mcp: SURFACE_IMPORTS,
  console: SURFACE_IMPORTS,
  http: SURFACE_IMPORTS,
  grpc: SURFACE_IMPORTS,
  a2a: SURFACE_IMPORTS,
  worker: ['core', 'embed', 'metrics', 'surface-shared'],
  app: ['core', 'store', 'embed', 'mesh', 'auth', 'service', 'metrics'],
};
const MAX_DEPTH = 8;

/**
 * Inside src/mcp, the same one level down: protocol ← server ← features ← transports; client/ (code
 * that talks to a running server) may use protocol/ and features' wire vocabulary (URIs, presentation,
 * header names). Files at the top of src/mcp (index.ts) may import any of them.
 */
const MCP_LAYERS = {
  protocol: [],
  server: ['protocol'],
  features: ['protocol', 'server'],
  transports: ['protocol', 'server', 'features', 'client'],
  client: ['protocol', 'features'],
};

function restrictedImport(regex, message, ...more) {
  return restrictedImports([{ regex, message }, ...more]);
}

function restrictedImports(patterns) {
  return { rules: { 'no-restricted-imports': ['error', { patterns }] } };
}

/** For one depth of src/mcp files: the top-level patterns joined by the sub-layer's (a later config replaces a rule's patterns, never adds to them). */
function mcpLayeringConfigs(depth, topLevel) {
  const configs = [];
  if (depth < 2) return configs;
  for (const [sub, allowed] of Object.entries(MCP_LAYERS)) {
    const message = `src/mcp/${sub} may import ${allowed.length === 0 ? 'no other folder of src/mcp/' : `only src/mcp/{${allowed.join(',')}}`} (MCP_LAYERS in eslint.config.js)`;
    // From a file in src/mcp/<sub>/…, as many `../` as lead back to src/mcp, then a folder not allowed (or mcp's own index).
    const regex = `^(\\.\\./){${depth - 1}}(?!(${[sub, ...allowed].join('|')})(/|$))[^./]`;
    configs.push({ files: [`src/mcp/${sub}/${'*/'.repeat(depth - 2)}*.ts`], ...restrictedImports([...topLevel, { regex, message }]) });
  }
  return configs;
}

/** What other folders may import of src/service: its face, never a concern's file (docs/architecture.md). */
const SERVICE_FACE = ['index', 'memory-facade', 'facade-config'];

function layeringConfigs() {
  const configs = [];
  for (const [folder, allowed] of Object.entries(LAYERS)) {
    const permitted = [folder, ...allowed].join('|');
    const message = `src/${folder} may import ${allowed.length === 0 ? 'no other folder of src/' : `only src/{${allowed.join(',')}}`} (the layering in eslint.config.js)`;
    for (let depth = 1; depth <= MAX_DEPTH; depth += 1) {
      const serviceFace = allowed.includes('service')
        ? [{ regex: `^(\\.\\./){${depth}}service/(?!(${SERVICE_FACE.join('|')})\\.js$)`, message: `src/${folder} imports src/service only through ${SERVICE_FACE.map((name) => `${name}.ts`).join(', ')}` }]
        : [];
      const topLevel = [{ regex: `^(\\.\\./){${depth}}(?!(${permitted})(/|$))[^./]`, message }, ...serviceFace];
      configs.push({ files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`], ...restrictedImports(topLevel) });
      if (folder === 'mcp') configs.push(...mcpLayeringConfigs(depth, topLevel));
    }
  }
  // A folder not in the table is refused every other folder until it is given its place in it.
  const placed = ['cli', ...Object.keys(LAYERS)].map((folder) => `src/${folder}/**`);
  for (let depth = 1; depth <= MAX_DEPTH; depth += 1) {
    configs.push({
      files: [`src/*/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: placed,
      ...restrictedImport(`^(\\.\\./){${depth}}[^./]`, 'this folder of src/ has no place in the layering yet: add it to LAYERS in eslint.config.js'),
    });
  }
  // The operator imports nothing from src/; its tests may, to check they agree with the server.
  for (let depth = 1; depth <= MAX_DEPTH; depth += 1) {
    configs.push({
      files: [`operator/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: ['operator/**/*.test.ts'],
      ...restrictedImport(`^(\\.\\./){${depth}}src(/|$)`, 'the operator imports nothing from src/ (the layering in eslint.config.js)'),
    });
  }
  return configs;
}

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', 'bench/results/**', 'charts/**', 'crds/**', 'src/grpc/gen/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly', Buffer: 'readonly', setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly', setImmediate: 'readonly', AbortController: 'readonly', AbortSignal: 'readonly', TextEncoder: 'readonly', TextDecoder: 'readonly', fetch: 'readonly', performance: 'readonly', structuredClone: 'readonly', queueMicrotask: 'readonly' } },
    rules: {
      'no-restricted-syntax': ['error', { selector: 'ExportDefaultDeclaration', message: 'No default exports: use named exports.' }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  ...layeringConfigs(),
  // Each setting is read once, by the configuration (src/core/config.ts, src/core/config/); test/ci/config-env-lint.test.ts proves it.
  // The operator is its own program (it imports nothing from src/): it reads its environment only at its entry points.
  {
    files: ['src/**/*.ts', 'operator/src/**/*.ts'],
    ignores: ['src/core/config.ts', 'src/core/config/**', 'operator/src/operator-cli.ts', 'operator/src/run-operator.ts', '**/*.test.ts'],
    rules: { 'no-restricted-properties': ['error', { object: 'process', property: 'env', message: 'read settings through the configuration (src/core/config/, declared once there; the operator: operator-cli.ts)' }] },
  },
  { files: ['eslint.config.js', 'vitest.config.ts', 'test/ci/fixtures/vitest.fixture.config.ts', 'test/ci/fixtures/tiers/vitest.tiers.config.ts'], rules: { 'no-restricted-syntax': 'off' } },
);
