/** Admin (admin keys only): the tenant's API keys within the admin's own reach — create (shown once), list, revoke — and quotas in use. */
import type { JSX } from 'preact';
import { useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';
import type { ApiKeyInfo, CreatedApiKey, QuotaUsage, Role } from '../api/wire.js';
import { ConfirmDialog } from '../components/confirm-dialog.js';
import { useConfirmedAction } from '../components/use-confirmed-action.js';
import { ErrorNotice, Loading } from '../components/notices.js';
import { asApiError, useLoad } from '../components/use-load.js';
import { formatInstant } from '../format.js';
import { useSession } from '../session.js';

const ROLES: readonly Role[] = ['reader', 'writer', 'admin'];

function CreateKeyForm({ onCreated }: { onCreated(key: CreatedApiKey): void }): JSX.Element {
  const { api, identity } = useSession();
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  // A key is minted within the admin's own reach (docs/security.md): never above its own trust.
  const trustCap = Number(identity.trust.toPrecision(6));
  const submit = async (event: Event): Promise<void> => {
    event.preventDefault();
    const form = event.currentTarget as HTMLFormElement;
    const data = new FormData(form);
    const projects = String(data.get('projects') ?? '*')
      .split(',')
      .map((project) => project.trim())
      .filter((project) => project !== '');
    const defaultProject = String(data.get('default_project') ?? '').trim();
    const body = {
      tenant: identity.tenant,
      agent: String(data.get('agent') ?? '').trim(),
      roles: [String(data.get('role') ?? 'writer')],
      projects: projects.length === 0 ? ['*'] : projects,
      ...(defaultProject === '' ? {} : { default_project: defaultProject }),
      trust: Number(data.get('trust') ?? 0.5),
    };
    setBusy(true);
    try {
      onCreated(await api.post<CreatedApiKey>('/v1/admin/keys', body));
      setError(undefined);
      form.reset();
    } catch (failure) {
      setError(asApiError(failure));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form class="filters" aria-labelledby="create-heading" onSubmit={(event) => void submit(event)}>
      <h3 id="create-heading" class="wide">
        Create a key
      </h3>
      <div class="field">
        <label for="new-agent">Agent</label>
        <input id="new-agent" name="agent" required pattern="[A-Za-z0-9._@:\|+\-]{1,128}" />
      </div>
      <div class="field">
        <label for="new-role">Role</label>
        <select id="new-role" name="role">
          {ROLES.map((role) => (
            <option key={role} value={role} selected={role === 'writer'}>
              {role}
            </option>
          ))}
        </select>
      </div>
      <div class="field">
        <label for="new-projects">Projects (comma-separated, * = all; at most yours)</label>
        <input id="new-projects" name="projects" defaultValue={identity.projects.join(',')} />
      </div>
      <div class="field">
        <label for="new-default">Default project</label>
        <input id="new-default" name="default_project" />
      </div>
      <div class="field narrow">
        <label for="new-trust">Trust (0–{trustCap})</label>
        <input id="new-trust" name="trust" type="number" min={0} max={trustCap} step="any" defaultValue={String(Math.min(0.5, trustCap))} />
      </div>
      <div class="actions">
        <button type="submit" disabled={busy}>
          Create key
        </button>
      </div>
      <ErrorNotice error={error} what="Creating the key" />
    </form>
  );
}

function NewKey({ created, onDismiss }: { readonly created: CreatedApiKey; onDismiss(): void }): JSX.Element {
  const [copied, setCopied] = useState(false);
  return (
    <div class="new-key" role="status">
      <p>
        Key for <strong>{created.agent}</strong> created. Copy it now: <strong>it is not shown again</strong>.
      </p>
      <label for="created-key">New key</label>
      <input id="created-key" readOnly value={created.key} onFocus={(event) => event.currentTarget.select()} />
      <div class="actions">
        <button
          type="button"
          onClick={() => {
            void navigator.clipboard.writeText(created.key).then(() => setCopied(true));
          }}
        >
          {copied ? 'Copied' : 'Copy'}
        </button>
        <button type="button" onClick={onDismiss}>
          Done
        </button>
      </div>
    </div>
  );
}

function KeysTable({ keys, onRevoke }: { readonly keys: readonly ApiKeyInfo[]; onRevoke(key: ApiKeyInfo): void }): JSX.Element {
  const { identity } = useSession();
  return (
    <table>
      <caption>API keys of tenant {identity.tenant} within your projects, roles and trust</caption>
      <thead>
        <tr>
          <th scope="col">Agent</th>
          <th scope="col">Roles</th>
          <th scope="col">Projects</th>
          <th scope="col">Prefix</th>
          <th scope="col">Created</th>
          <th scope="col">State</th>
          <th scope="col">
            <span class="visually-hidden">Actions</span>
          </th>
        </tr>
      </thead>
      <tbody>
        {keys.map((key) => (
          <tr key={key.key_id}>
            <th scope="row">{key.agent}</th>
            <td>{key.roles.join(', ')}</td>
            <td>{key.projects.join(', ')}</td>
            <td>
              <code>{key.key_prefix}…</code>
            </td>
            <td>{formatInstant(key.created_at)}</td>
            <td>{key.revoked_at === null ? 'active' : `revoked ${formatInstant(key.revoked_at)}`}</td>
            <td>
              {key.revoked_at === null && key.key_id !== identity.key_id ? (
                <button type="button" class="danger" onClick={() => onRevoke(key)} aria-label={`Revoke the key of ${key.agent} (${key.key_prefix})`}>
                  Revoke…
                </button>
              ) : null}
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

function Quotas(): JSX.Element {
  const { api } = useSession();
  const loaded = useLoad(() => api.get<{ quotas: readonly QuotaUsage[] }>('/v1/admin/quotas'), []);
  return (
    <section aria-labelledby="quotas-heading">
      <h2 id="quotas-heading">Quotas in use</h2>
      <Loading when={loaded.loading && loaded.data === undefined} />
      <ErrorNotice error={loaded.error} what="Reading quotas" />
      {loaded.data === undefined ? null : (
        <table>
          <thead>
            <tr>
              <th scope="col">Quota</th>
              <th scope="col">Scope</th>
              <th scope="col">Used</th>
              <th scope="col">Limit</th>
            </tr>
          </thead>
          <tbody>
            {loaded.data.quotas.map((quota) => (
              <tr key={`${quota.quota}:${quota.scope}`}>
                <th scope="row">{quota.quota.replaceAll('_', ' ')}</th>
                <td>{quota.scope}</td>
                <td>
                  <meter min={0} max={quota.limit} value={quota.used} high={quota.limit * 0.9} aria-label={`${quota.quota} used`} />{' '}
                  {quota.used}
                </td>
                <td>{quota.limit}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function AdminPage(): JSX.Element {
  const { api } = useSession();
  const keys = useLoad(() => api.get<{ keys: readonly ApiKeyInfo[] }>('/v1/admin/keys'), []);
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  const [target, setTarget] = useState<ApiKeyInfo | undefined>(undefined);
  const revoke = useConfirmedAction(async () => {
    if (target === undefined) return;
    await api.delete(`/v1/admin/keys/${encodeURIComponent(target.key_id)}`);
    keys.reload();
  });
  return (
    <div class="page">
      <h1>Admin</h1>
      <section aria-labelledby="keys-heading">
        <h2 id="keys-heading">API keys</h2>
        {created === undefined ? null : <NewKey created={created} onDismiss={() => setCreated(undefined)} />}
        <CreateKeyForm
          onCreated={(key) => {
            setCreated(key);
            keys.reload();
          }}
        />
        <Loading when={keys.loading && keys.data === undefined} />
        <ErrorNotice error={keys.error} what="Listing keys" />
        <ErrorNotice error={revoke.error} what="Revoking the key" />
        {keys.data === undefined ? null : (
          <KeysTable
            keys={keys.data.keys}
            onRevoke={(key) => {
              setTarget(key);
              revoke.ask();
            }}
          />
        )}
        <ConfirmDialog
          open={revoke.confirming}
          title="Revoke this key?"
          confirmLabel="Revoke"
          busy={revoke.busy}
          onCancel={revoke.cancel}
          onConfirm={revoke.confirm}
        >
          <p>{target === undefined ? '' : `${target.agent} (${target.key_prefix}…)`} is refused from now on; its open streams end.</p>
        </ConfirmDialog>
      </section>
      <Quotas />
    </div>
  );
}
