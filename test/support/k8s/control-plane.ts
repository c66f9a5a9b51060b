// A real control plane for tests: etcd + kube-apiserver on free loopback ports, no kubelet and
// no controller-manager (as envtest runs it). Admin access is a static bearer token in
// system:masters; RBAC stays on so least-privilege identities can be tested too.
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import https from 'node:https';
import { findK8sAssets } from './assets.js';
import { freePort } from '../free-port.js';

export { freePort };

export interface ControlPlane {
  /** https://127.0.0.1:port */
  server: string;
  /** The apiserver's self-signed serving certificate, to verify it with (as a pod's ca.crt does). */
  caFile: string;
  token: string;
  kubeconfigPath: string;
  kubeconfig: string;
  /** Extra bearer tokens with their user names (no groups), for RBAC tests. */
  userTokens: Record<string, string>;
  stop(): Promise<void>;
}

export interface ControlPlaneOptions {
  /** Additional users (name → token) without group membership. */
  users?: string[];
  /** Extra kube-apiserver flags, e.g. a short --etcd-compaction-interval. */
  apiserverArgs?: string[];
}


export async function startControlPlane(options: ControlPlaneOptions = {}): Promise<ControlPlane> {
  const assets = findK8sAssets();
  if (!assets.kubeApiserver || !assets.etcd) throw new Error(`missing ${assets.missing.join(', ')}`);
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-k8s-'));
  const children: ChildProcess[] = [];
  const logs: string[] = [];
  const track = (name: string, child: ChildProcess): ChildProcess => {
    const keep = (b: Buffer): void => {
      logs.push(`[${name}] ${b.toString()}`);
      if (logs.length > 400) logs.shift();
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    children.push(child);
    return child;
  };

  const stop = async (): Promise<void> => {
    for (const c of children.reverse()) {
      if (c.exitCode !== null || c.signalCode !== null) continue;
      const exited = new Promise<void>((r) => c.once('exit', () => r()));
      c.kill('SIGTERM');
      const timer = setTimeout(() => c.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    const [etcdClient, etcdPeer, apiPort] = [await freePort(), await freePort(), await freePort()];
    const etcdUrl = `http://127.0.0.1:${etcdClient}`;
    const peerUrl = `http://127.0.0.1:${etcdPeer}`;
    track(
      'etcd',
      spawn(
        assets.etcd,
        [
          `--data-dir=${join(dir, 'etcd')}`,
          `--listen-client-urls=${etcdUrl}`,
          `--advertise-client-urls=${etcdUrl}`,
          `--listen-peer-urls=${peerUrl}`,
          `--initial-advertise-peer-urls=${peerUrl}`,
          `--initial-cluster=default=${peerUrl}`,
          // Test data is throwaway: skipping fsync makes every write an order of magnitude faster.
          '--unsafe-no-fsync',
          '--log-level=warn',
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );

    const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    writeFileSync(join(dir, 'sa.pub'), publicKey.export({ type: 'spki', format: 'pem' }));
    writeFileSync(join(dir, 'sa.key'), privateKey.export({ type: 'pkcs8', format: 'pem' }));
    const token = randomBytes(24).toString('hex');
    const userTokens: Record<string, string> = {};
    const lines = [`${token},admin,admin-uid,"system:masters"`];
    for (const user of options.users ?? []) {
      userTokens[user] = randomBytes(24).toString('hex');
      lines.push(`${userTokens[user]},${user},${user}-uid`);
    }
    writeFileSync(join(dir, 'tokens.csv'), lines.join('\n') + '\n');

    track(
      'kube-apiserver',
      spawn(
        assets.kubeApiserver,
        [
          `--etcd-servers=${etcdUrl}`,
          `--cert-dir=${join(dir, 'certs')}`,
          `--secure-port=${apiPort}`,
          '--bind-address=127.0.0.1',
          '--advertise-address=127.0.0.1',
          '--service-cluster-ip-range=10.0.0.0/24',
          '--allow-privileged=true',
          '--authorization-mode=RBAC',
          `--token-auth-file=${join(dir, 'tokens.csv')}`,
          '--service-account-issuer=https://kubernetes.default.svc.cluster.local',
          `--service-account-key-file=${join(dir, 'sa.pub')}`,
          `--service-account-signing-key-file=${join(dir, 'sa.key')}`,
          // No controller-manager runs to mint ServiceAccount tokens; pods are never scheduled anyway.
          '--disable-admission-plugins=ServiceAccount',
          '--v=0',
          ...(options.apiserverArgs ?? []),
        ],
        { stdio: ['ignore', 'pipe', 'pipe'] },
      ),
    );

    const server = `https://127.0.0.1:${apiPort}`;
    await waitReady(server, token, children, logs);
    const kubeconfig = kubeconfigFor(server, token);
    const kubeconfigPath = join(dir, 'kubeconfig');
    writeFileSync(kubeconfigPath, kubeconfig);
    return { server, caFile: join(dir, 'certs', 'apiserver.crt'), token, kubeconfig, kubeconfigPath, userTokens, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

export function kubeconfigFor(server: string, token: string, user = 'admin'): string {
  return JSON.stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [{ name: 'test', cluster: { server, 'insecure-skip-tls-verify': true } }],
    users: [{ name: user, user: { token } }],
    contexts: [{ name: 'test', context: { cluster: 'test', user } }],
    'current-context': 'test',
  });
}

async function waitReady(server: string, token: string, children: ChildProcess[], logs: string[]): Promise<void> {
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    for (const c of children) {
      if (c.exitCode !== null) throw new Error(`control plane process exited (${c.exitCode}):\n${logs.slice(-40).join('')}`);
    }
    if ((await getStatus(`${server}/readyz`, token)) === 200) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`kube-apiserver not ready after 90s:\n${logs.slice(-40).join('')}`);
}

export function getStatus(url: string, token: string): Promise<number> {
  return new Promise((resolve) => {
    const req = https.get(url, { rejectUnauthorized: false, headers: { Authorization: `Bearer ${token}` }, timeout: 2000 }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', () => resolve(0));
    req.on('timeout', () => req.destroy());
  });
}
