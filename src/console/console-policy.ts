/**
 * The console page's Content-Security-Policy: its own scripts, styles and API calls only — no
 * inline script or style, nothing from another origin, not framable. With sign-in through an
 * identity provider, `connect-src` adds that provider's token endpoint origin (the code-for-token
 * request), and nothing else.
 */
export function consoleCsp(tokenEndpointOrigin?: string): string {
  return [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    tokenEndpointOrigin === undefined ? "connect-src 'self'" : `connect-src 'self' ${tokenEndpointOrigin}`,
    "font-src 'none'",
    "object-src 'none'",
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export const CONSOLE_CSP = consoleCsp();

/** Where the console lives on the HTTP port. */
export const CONSOLE_PATH = '/console';
