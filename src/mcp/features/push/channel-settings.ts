/**
 * Whether an MCP entry offers Claude Code channel events, and how: the process settings
 * (HYPHAE_MCP_CHANNEL, _MIN_TRUST, _MAX_PER_MINUTE), and a client's own opt-out over HTTP
 * (`x-hyphae-channel: off`, which `hyphae mcp --remote` sends when its own setting is off).
 */
import type { HyphaeConfig } from '../../../core/config.js';
import type { ChannelSettings } from './channel-session.js';

/** The request header with which an HTTP client declines channel events (initialize and GET /mcp). */
export const CHANNEL_HEADER = 'x-hyphae-channel';

/** The process's channel settings; undefined when HYPHAE_MCP_CHANNEL is off. */
export function channelSettingsOf(channel: HyphaeConfig['channel']): ChannelSettings | undefined {
  return channel.enabled ? { minTrust: channel.minTrust, maxPerMinute: channel.maxPerMinute } : undefined;
}

/** Whether a request's `x-hyphae-channel` header declines the channel. */
export function headerDeclinesChannel(value: string | string[] | undefined): boolean {
  const text = (Array.isArray(value) ? value[0] : value)?.trim().toLowerCase();
  return text === 'off' || text === '0' || text === 'false' || text === 'no';
}
