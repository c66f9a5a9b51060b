/**
 * The admin export and import of the principal's own tenant (REST `/v1/admin/export` and
 * `/v1/admin/import`; docs/export-format.md). The tenant is always the principal's: an exported
 * file names only it, and an import refuses a file naming any other. A whole-tenant export or a
 * Hyphae import needs a key scoped to every project; a project's export, or a foreign import into
 * a project, needs that project in scope. An import body is read only after the role (enforceRoles)
 * and the scope are checked, into the spool's bounded temporary files.
 */
import type { ImportSummary } from '../../core/export-format.js';
import { ForbiddenError } from '../../core/errors.js';
import { ALL_PROJECTS, type Principal } from '../../core/principal.js';
import { mintRefusal } from '../../core/key-authority.js';
import { exportTenantInputSchema, importTenantInputSchema, type ImportTenantInput } from '../../core/schemas.js';
import { tenantAgents } from '../../store/agent-trust-repository.js';
import { activeAgentKeys } from '../../store/key-repository.js';
import { requireProject } from '../facade/authorization.js';
import { parseInput } from '../facade/input-validation.js';
import type { MemoryFacade } from '../memory-facade.js';
import { dumpReaderFor } from './dump-readers.js';
import { exportDumpLines } from './export-dump.js';
import { importDump } from './import-dump.js';
import type { DumpSource } from './dump-source.js';
import { isImportBody } from './import-spool.js';
import { PRODUCT_VERSION } from '../product-version.js';
import type { FacadeContext } from '../facade/facade-context.js';

export type PortabilityOperations = Pick<MemoryFacade, 'exportTenant' | 'importTenant'>;

/** The most one import body may carry: a 100k-cell export with 384-d vectors is about 0.5 GiB. */
export const IMPORT_MAX_BYTES = 2 * 1024 ** 3;

function requireWholeTenant(principal: Principal, what: string): void {
  if (!principal.projects.includes(ALL_PROJECTS)) throw new ForbiddenError(`${what} needs a key scoped to every project ("*")`);
}

export function portabilityOperations(ctx: FacadeContext): PortabilityOperations {
  const identity = { modelId: ctx.embedder.modelId, dimension: ctx.embedder.dimension };

  /**
   * A foreign import's cells are written as `agent`: allowed only where the importer could mint
   * that agent a key (core/key-authority.ts) — its own keys all within the importer's reach, or a
   * name the tenant does not know yet — so an import speaks for no one the admin does not cover.
   */
  async function requireAuthorship(principal: Principal, agent: string, project: string): Promise<void> {
    const agentKeys = await activeAgentKeys(ctx.db, principal.tenantId, agent);
    const known = agentKeys.length > 0 || (await tenantAgents(ctx.db, principal.tenantId, [agent])).has(agent);
    const refusal = mintRefusal(principal, { roles: [], projects: [project], trust: 0 }, agentKeys, known);
    if (refusal !== null) {
      throw new ForbiddenError(`importing as agent "${agent}" needs authority over it: it holds keys beyond your own reach, or only a tenant-wide admin may speak for it`, {
        details: { exceeds: refusal },
      });
    }
  }

  return {
    async exportTenant(principal, raw): Promise<AsyncIterable<string>> {
      const input = parseInput(exportTenantInputSchema, raw);
      if (input.project === undefined) requireWholeTenant(principal, 'exporting the whole tenant');
      else requireProject(principal, input.project);
      return exportDumpLines(ctx.db, {
        scope: { tenantId: principal.tenantId, project: input.project ?? null },
        withVectors: input.with_vectors,
        identity,
        hyphaeVersion: PRODUCT_VERSION,
        now: ctx.clock(),
      });
    },

    async importTenant(principal, body, raw): Promise<ImportSummary> {
      const input = parseInput(importTenantInputSchema, raw);
      const project = input.project ?? principal.defaultProject;
      if (input.format === 'hyphae') requireWholeTenant(principal, 'importing an export');
      else requireProject(principal, project);
      if (input.format !== 'hyphae' && input.agent !== undefined && input.agent !== principal.agent) await requireAuthorship(principal, input.agent, project);
      if (!isImportBody(body)) return importFrom(principal, body, input, project);
      const spooled = await ctx.importSpool.spool(principal.tenantId, body);
      try {
        return await importFrom(principal, spooled.source, input, project);
      } finally {
        await spooled.dispose();
      }
    },
  };

  async function importFrom(principal: Principal, source: DumpSource, input: ImportTenantInput, project: string): Promise<ImportSummary> {
    const target = { tenant: principal.tenantId, agent: input.agent ?? principal.agent, project, now: ctx.clock() };
    return importDump(ctx.db, dumpReaderFor(input.format, source, target), {
      target: identity,
      embedder: async () => ctx.embedder,
      tenant: principal.tenantId,
      tenantImport: { tenant: principal.tenantId, importer: principal, agents: [principal.agent, target.agent], now: target.now },
      cellQuota: { tenantId: principal.tenantId, limit: ctx.config.maxCellsPerTenant },
      // Imported sessions and beacons move what the store path remembers of the tenant.
      beforeCommit: () => {
        ctx.scopes.forgetTenant(principal.tenantId);
        ctx.gossip.beaconPlaced(principal.tenantId);
      },
    });
  }
}
