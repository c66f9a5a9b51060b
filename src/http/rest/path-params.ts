/** Path parameter schemas of the REST routes; bodies and queries reuse src/core/schemas.ts. */
import { z } from 'zod';
import { uuidSchema } from '../../core/schemas.js';

const idParams = (what: string): z.ZodObject<{ id: z.ZodUUID }> => z.strictObject({ id: uuidSchema.describe(`Id of the ${what}`) });

export const cellIdParamsSchema = idParams('cell (node_id)');
export const sessionIdParamsSchema = idParams('session');
export const beaconIdParamsSchema = idParams('beacon');
export const sceneIdParamsSchema = idParams('scene');
export const keyIdParamsSchema = idParams('API key');
