// The operator's client keeps its TLS connections to the API server open between requests
// (client-node alone opens one per request), and opens a new one when the TLS identity it reads
// from the kubeconfig changes, closing the old. Connections are counted by a TCP relay between the
// client and a real kube-apiserver.
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import type { AddressInfo, Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../operator/src/kube/kube-client.js';
import { k8sSkipReason } from '../support/k8s/assets.js';
import { startControlPlane } from '../support/k8s/control-plane.js';
import type { ControlPlane } from '../support/k8s/control-plane.js';

const skip = k8sSkipReason();

interface ConnectionRelay {
  url: string;
  accepted: () => number;
  open: () => number;
  close: () => Promise<void>;
}

/** A TCP relay on loopback to `target`, counting the connections it accepts and those still open. */
async function relayTo(target: URL): Promise<ConnectionRelay> {
  let accepted = 0;
  let open = 0;
  const server: Server = createServer((client) => {
    accepted += 1;
    open += 1;
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    let closed = false;
    const end = (): void => {
      if (closed) return;
      closed = true;
      open -= 1;
      client.destroy();
      upstream.destroy();
    };
    client.on('end', end).on('close', end).on('error', end);
    upstream.on('end', end).on('close', end).on('error', end);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}`,
    accepted: () => accepted,
    open: () => open,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

describe.skipIf(skip !== undefined)('operator client connections to a real kube-apiserver', () => {
  let cp: ControlPlane;
  let relay: ConnectionRelay;
  const dir = mkdtempSync(join(tmpdir(), 'hyphae-conn-'));
  const caFile = join(dir, 'ca.crt');

  beforeAll(async () => {
    cp = await startControlPlane();
    relay = await relayTo(new URL(cp.server));
    copyFileSync(cp.caFile, caFile);
  });
  afterAll(async () => {
    await relay?.close();
    await cp?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reuses one connection until the CA bundle changes, then moves to a new one and closes the old', async () => {
    const kc = new KubeConfig();
    kc.loadFromClusterAndUser({ name: 'relayed', server: relay.url, caFile, skipTLSVerify: false }, { name: 'admin', token: cp.token });
    const client = KubeClient.fromKubeConfig(kc);
    try {
      for (let i = 0; i < 10; i++) await client.get('/api/v1/namespaces/default');
      expect(relay.accepted()).toBe(1);

      // The same CA re-issued as a new bundle: a different TLS identity, read afresh per request.
      writeFileSync(caFile, `${readFileSync(cp.caFile, 'utf8')}\n`);
      await client.get('/api/v1/namespaces/default');
      await client.get('/api/v1/namespaces/default');
      expect(relay.accepted()).toBe(2);
      expect(relay.open()).toBe(1);
    } finally {
      client.close();
    }
  });
});
