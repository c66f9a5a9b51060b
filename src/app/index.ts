/** The composition root: what the `hyphae` commands, tests and benches build a process with. */
export { openHyphaeApp } from './open-hyphae-app.js';
export type { HyphaeApp, HyphaeAppOptions, HyphaeAppParts, ReadinessCheck } from './hyphae-app.js';
export { databaseSettingsFrom, openConfiguredDatabase, openMigratedDatabase } from './configured-database.js';
export type { MigratedDatabase } from './configured-database.js';
export { createConfiguredEmbedder, embedderConfigFrom } from './configured-embedder.js';
export type { ConfiguredEmbedderOptions } from './configured-embedder.js';
export { createConfiguredFacade } from './configured-facade.js';
export type { FacadeWiring } from './configured-facade.js';
export { exportConfiguredDatabase, importIntoConfiguredDatabase } from './data-portability.js';
export type { DatabaseExportOptions, DatabaseImportOptions } from './data-portability.js';
