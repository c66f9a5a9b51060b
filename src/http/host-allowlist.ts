/**
 * `Host` header allowlist (docs/security.md): a defence against DNS rebinding, where a browser page on an
 * attacker's name reaches a server bound to loopback. Loopback names are always allowed.
 */
import { isIP } from 'node:net';

const LOOPBACK_NAMES = new Set(['localhost', '::1', '0:0:0:0:0:0:0:1']);

/** The host part of a `Host` header value, lower-cased, without port or IPv6 brackets; null when malformed. */
export function hostnameOf(hostHeader: string | undefined): string | null {
  if (hostHeader === undefined) return null;
  const value = hostHeader.trim().toLowerCase();
  if (value.length === 0 || value.length > 255) return null;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0) return null;
    const rest = value.slice(end + 1);
    if (rest !== '' && !/^:\d{1,5}$/.test(rest)) return null;
    const address = value.slice(1, end);
    return isIP(address) === 6 ? address : null;
  }
  const colon = value.indexOf(':');
  const name = colon < 0 ? value : value.slice(0, colon);
  const port = colon < 0 ? '' : value.slice(colon + 1);
  if (colon >= 0 && !/^\d{1,5}$/.test(port)) return null;
  if (!/^[a-z0-9.-]+$/.test(name)) return null;
  return name.endsWith('.') ? name.slice(0, -1) : name;
}

export function isLoopbackHost(hostname: string): boolean {
  if (LOOPBACK_NAMES.has(hostname) || hostname.endsWith('.localhost')) return true;
  return isIP(hostname) === 4 && hostname.startsWith('127.');
}

/** Compiles the allowlist once; the returned predicate takes the raw `Host` header value. */
export function createHostAllowlist(allowedHosts: readonly string[]): (hostHeader: string | undefined) => boolean {
  const entries = allowedHosts.map((entry) => entry.trim().toLowerCase()).filter((entry) => entry.length > 0);
  if (entries.includes('*')) return (hostHeader) => hostnameOf(hostHeader) !== null;
  const exact = new Set(entries.filter((entry) => !entry.startsWith('*.')).map((entry) => hostnameOf(entry) ?? entry));
  const suffixes = entries.filter((entry) => entry.startsWith('*.')).map((entry) => entry.slice(1));
  return (hostHeader) => {
    const hostname = hostnameOf(hostHeader);
    if (hostname === null) return false;
    if (isLoopbackHost(hostname) || exact.has(hostname)) return true;
    return suffixes.some((suffix) => hostname.endsWith(suffix) && hostname.length > suffix.length);
  };
}
