/**
 * The console page's Content-Security-Policy: its own scripts, styles and API calls only — no
 * inline script or style, nothing from another origin, not framable.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** Where the console lives on the HTTP port. */
export const CONSOLE_PATH = '/console';
