/** The web console's server side: its static bundle and the routes that serve it (docs/console.md). */
export { defaultBundleDir, loadConsoleBundle } from './console-bundle.js';
export type { ConsoleBundle, ConsoleFile } from './console-bundle.js';
export { CONSOLE_CSP, CONSOLE_PATH, consoleCsp } from './console-policy.js';
export { CONSOLE_SIGN_IN_PATH } from './console-sign-in.js';
export type { ConsoleSignIn, ProviderEndpoints } from './console-sign-in.js';
export { registerConsoleRoutes } from './console-routes.js';
