/** Every `/v1` route, in the order the OpenAPI document lists them (docs/rest.md). */
import { adminKeyRoutes } from './admin-key-routes.js';
import { beaconRoutes } from './beacon-routes.js';
import { cellRoutes } from './cell-routes.js';
import { diffRoutes } from './diff-routes.js';
import { feedbackRoutes } from './feedback-routes.js';
import { erasureRoutes } from './erasure-routes.js';
import { gossipRoutes } from './gossip-routes.js';
import { identityRoutes } from './identity-routes.js';
import { quotaRoutes } from './quota-routes.js';
import { recallRoutes } from './recall-routes.js';
import { relationRoutes } from './relation-routes.js';
import type { RestRoute } from './rest-route.js';
import { sceneRoutes } from './scene-routes.js';
import { sessionRoutes } from './session-routes.js';
import { sourceRoutes } from './source-routes.js';

export const REST_ROUTES: readonly RestRoute[] = [
  ...cellRoutes,
  ...relationRoutes,
  ...recallRoutes,
  ...sessionRoutes,
  ...beaconRoutes,
  ...diffRoutes,
  ...sceneRoutes,
  ...adminKeyRoutes,
  ...quotaRoutes,
  ...identityRoutes,
  ...gossipRoutes,
  ...sourceRoutes,
  ...feedbackRoutes,
  ...erasureRoutes,
];
