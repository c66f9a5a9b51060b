/** The configuration schema: every setting, by group, in the order the configuration table lists them. */
import { databaseSettings, embedSettings, knnSettings } from './backend-settings.js';
import { cellSettings, channelSettings, gossipSettings, importSettings, limitSettings, sourceSettings } from './memory-settings.js';
import { oauthSettings, publicUrlSetting } from './oauth-settings.js';
import { feedbackSettings } from './feedback-settings.js';
import { grpcSettings, hookSettings, httpSettings, keySettings, logSettings, requestSettings, workerSettings } from './server-settings.js';
import type { GroupValues, SettingGroup } from './setting.js';
import { toolsetSettings } from './toolset-settings.js';

export const CONFIG_SCHEMA = {
  http: { ...httpSettings, publicUrl: publicUrlSetting },
  grpc: grpcSettings,
  requests: requestSettings,
  log: logSettings,
  keys: keySettings,
  database: databaseSettings,
  knn: knnSettings,
  embed: embedSettings,
  cells: cellSettings,
  gossip: gossipSettings,
  limits: limitSettings,
  sources: sourceSettings,
  import: importSettings,
  channel: channelSettings,
  feedback: feedbackSettings,
  oauth: oauthSettings,
  worker: workerSettings,
  hook: hookSettings,
  mcpToolsets: toolsetSettings,
} as const satisfies Readonly<Record<string, SettingGroup>>;

export type ConfigSchema = typeof CONFIG_SCHEMA;

/** Every group's parsed values, as the schema declares them. */
export type ParsedSettings = { readonly [G in keyof ConfigSchema]: GroupValues<ConfigSchema[G]> };
