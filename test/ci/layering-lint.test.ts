/**
 * The layering rule of eslint.config.js, through ESLint's own API on the repository's config: an
 * import against an arrow fails lint with the rule's message, an allowed one passes — for folders
 * that exist, folders yet to come (app, metrics), files deep in a folder, the operator, and the
 * sub-layers inside src/mcp (protocol ← server ← features ← transports; client).
 */
import { ESLint } from 'eslint';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const eslint = new ESLint({ cwd: ROOT });

/** The no-restricted-imports messages for one import written in a file at `path` (which need not exist). */
async function layeringErrors(path: string, from: string): Promise<string[]> {
  const [result] = await eslint.lintText(`import type { Imported } from '${from}';\nexport type Exported = Imported;\n`, { filePath: path });
  return (result?.messages ?? []).filter((message) => message.ruleId === 'no-restricted-imports').map((message) => message.message);
}

describe('the layering lint rule', () => {
  it.each([
    ['src/core/entity.ts', '../store/db.js', 'src/core may import no other folder of src/'],
    ['src/store/queries/cells.ts', '../../service/memory-facade.js', 'src/store may import only src/{core}'],
    ['src/mesh/relay.ts', '../service/memory-facade.js', 'src/mesh may import only src/{core,store}'],
    ['src/mcp/transports/http-routes.ts', '../../http/index.js', 'src/mcp may import only'],
    ['src/mcp/features/push/push-stream.ts', '../../../a2a/index.js', 'src/mcp may import only'],
    ['src/grpc/call-guard.ts', '../http/index.js', 'src/grpc may import only'],
    ['src/http/build-http-app.ts', '../mcp/index.js', 'src/http may import only'],
    ['src/a2a/a2a-routes.ts', '../store/db.js', 'src/a2a may import only'],
    ['src/surface-shared/credentials.ts', '../mcp/index.js', 'src/surface-shared may import only'],
    ['src/worker/embed-server.ts', '../service/memory-facade.js', 'src/worker may import only'],
    ['src/metrics/hyphae-metrics.ts', '../service/memory-facade.js', 'src/metrics may import only src/{core}'],
    ['src/app/open-hyphae-app.ts', '../mcp/index.js', 'src/app may import only'],
    ['src/somewhere-new/thing.ts', '../core/errors.js', 'has no place in the layering yet'],
    ['operator/src/run-operator.ts', '../../src/core/config.js', 'the operator imports nothing from src/'],
    ['src/grpc/memory-service.ts', '../service/facade/input-validation.js', 'src/grpc imports src/service only through index.ts'],
    ['src/mcp/features/tools/store-tool.ts', '../../../service/cells/cell-writes.js', 'src/mcp imports src/service only through index.ts'],
    ['src/app/background-maintenance.ts', '../service/reembed/reembed-database.js', 'src/app imports src/service only through index.ts'],
    ['src/mcp/protocol/json-rpc.ts', '../server/mcp-dispatcher.js', 'src/mcp/protocol may import no other folder of src/mcp/'],
    ['src/mcp/server/mcp-dispatcher.ts', '../features/resources/resource-methods.js', 'src/mcp/server may import only src/mcp/{protocol}'],
    ['src/mcp/server/handshake-methods.ts', '../transports/http-replies.js', 'src/mcp/server may import only src/mcp/{protocol}'],
    ['src/mcp/server/mcp-dispatcher.ts', '../index.js', 'src/mcp/server may import only src/mcp/{protocol}'],
    ['src/mcp/features/tools/tool-call.ts', '../../transports/http-replies.js', 'src/mcp/features may import only src/mcp/{protocol,server}'],
    ['src/mcp/features/push/listen-push.ts', '../../transports/http-replies.js', 'src/mcp/features may import only src/mcp/{protocol,server}'],
    ['src/mcp/features/resources/deep/nested.ts', '../../../client/remote-session.js', 'src/mcp/features may import only src/mcp/{protocol,server}'],
    ['src/mcp/client/remote-session.ts', '../server/mcp-dispatcher.js', 'src/mcp/client may import only src/mcp/{protocol,features}'],
    ['src/mcp/server/mcp-dispatcher.ts', '../../http/index.js', 'src/mcp may import only'],
  ])('refuses %s importing %s', async (path, from, message) => {
    const errors = await layeringErrors(path, from);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(message);
  });

  it.each([
    ['src/core/energy.ts', './entities.js'],
    ['src/store/queries/cells.ts', '../../core/entities.js'],
    ['src/service/memory-facade.ts', '../mesh/bus.js'],
    ['src/service/memory-facade.ts', '../auth/key-authenticator.js'],
    ['src/mcp/transports/http-routes.ts', '../../surface-shared/index.js'],
    ['src/mcp/transports/http-routes.ts', '../server/mcp-dispatcher.js'],
    ['src/mcp/features/push/push-drop.ts', '../../../metrics/index.js'],
    ['src/grpc/call-guard.ts', '../surface-shared/index.js'],
    ['src/surface-shared/credentials.ts', '../auth/index.js'],
    ['src/worker/embed-server.ts', '../embed/embedder.js'],
    ['src/app/open-hyphae-app.ts', '../service/memory-facade.js'],
    ['src/app/open-hyphae-app.ts', '../service/facade-config.js'],
    ['src/mcp/features/tools/store-tool.ts', '../../../service/index.js'],
    ['src/cli/serve-app.ts', '../mcp/index.js'],
    ['src/mcp/server/mcp-call-observer.test.ts', '../../../test/support/test-runtime.js'],
    ['operator/src/desired/config-map.test.ts', '../../../src/core/config.js'],
    ['src/mcp/server/mcp-dispatcher.ts', '../protocol/json-rpc.js'],
    ['src/mcp/server/mcp-dispatcher.ts', '../../service/memory-facade.js'],
    ['src/mcp/features/tools/tool-call.ts', '../../server/mcp-features.js'],
    ['src/mcp/features/tools/tool-call.ts', '../resources/resource-wire.js'],
    ['src/mcp/transports/http-routes.ts', '../features/mcp-features.js'],
    ['src/mcp/transports/remote-bridge.ts', '../client/remote-session.js'],
    ['src/mcp/client/hook-report.ts', '../features/resources/inbox-presentation.js'],
    ['src/mcp/index.ts', './transports/http-routes.js'],
  ])('lets %s import %s', async (path, from) => {
    expect(await layeringErrors(path, from)).toEqual([]);
  });
});
