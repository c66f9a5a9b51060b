/** Connect-RPC clients (@connectrpc/connect-node) of the gRPC port, over each protocol it serves. */
import { createClient, type Client, type Transport } from '@connectrpc/connect';
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from '@connectrpc/connect-node';
import type { DescService } from '@bufbuild/protobuf';

export type Protocol = 'grpc' | 'grpc-web' | 'connect';

export function transportFor(protocol: Protocol, address: string): Transport {
  const baseUrl = `http://${address}`;
  if (protocol === 'grpc') return createGrpcTransport({ baseUrl });
  if (protocol === 'grpc-web') return createGrpcWebTransport({ baseUrl, httpVersion: '2' });
  return createConnectTransport({ baseUrl, httpVersion: '2' });
}

export function connectClient<S extends DescService>(service: S, address: string, protocol: Protocol = 'grpc'): Client<S> {
  return createClient(service, transportFor(protocol, address));
}

export const withKey = (key: string): { headers: Record<string, string> } => ({ headers: { 'x-hyphae-key': key } });
