/**
 * Where Hyphae may send or advertise OAuth traffic: https anywhere, plain http only to this machine
 * (a local authorization server in development and tests), so no token or key crosses a network in clear.
 */
import { isIP } from 'node:net';

/** `localhost`, `*.localhost`, 127.0.0.0/8 and ::1 (with or without the URL's brackets). */
export function isLoopbackHostname(hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/^\[(.*)\]$/, '$1');
  if (name === 'localhost' || name.endsWith('.localhost')) return true;
  if (isIP(name) === 4) return name.startsWith('127.');
  return isIP(name) === 6 && (name === '::1' || name === '0:0:0:0:0:0:0:1');
}

/** An absolute https URL, or an http URL whose host is loopback. */
export function isSecureOrLoopbackUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.protocol === 'https:') return true;
  return url.protocol === 'http:' && isLoopbackHostname(url.hostname);
}
