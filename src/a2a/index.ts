/** The A2A surface (opt-in): what the HTTP app mounts when HYPHAE_A2A=1. */
export { registerA2aRoutes } from './a2a-routes.js';
export type { A2aRouteDeps, A2aRoutes } from './a2a-routes.js';
export { A2A_PATH, AGENT_CARD_URL_PATH } from './agent-card.js';
