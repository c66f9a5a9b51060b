/** The HTTP surface: what the CLI and tests use. */
export { buildHttpApp } from './build-http-app.js';
export type { HttpAppDeps, MountRoutes } from './build-http-app.js';
export { DEFAULT_HTTP_CONFIG, resolveHttpConfig } from './http-config.js';
export type { HttpConfig } from './http-config.js';
export type { ReadinessCheck } from '../core/readiness.js';
export type { HttpLoggerOptions } from './logger-options.js';
export { buildOpenApiDocument } from './openapi-document.js';
export { REST_ROUTES } from './rest/rest-routes.js';
