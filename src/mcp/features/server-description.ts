/** What this server says about itself, the same in every revision: its instructions and capabilities (its name: protocol/server-version.ts). */
import { DIFFS_CAPABILITY } from '../protocol/diff-extension.js';
import type { McpServerDescription } from '../server/mcp-features.js';
import { CHANNEL_CAPABILITY } from './push/channel-event.js';
import { CHANNEL_INSTRUCTIONS } from './push/channel-instructions.js';

export const INSTRUCTIONS =
  'Hyphae is shared memory for agents. Store what others should know (store), recall by meaning (recall, query), open a ' +
  'session per task (open_session, close_session), declare standing interests (place_beacon) and read what was gossiped to ' +
  'you (drain_inbox, pull_diffs). Results name cells by resource_link: read a cell\'s content as the resource ' +
  'hyphae://cells/{node_id}; hyphae://inbox shows what reached you and is not drained yet (subscribe to it to hear when a diff lands), ' +
  'and the catch_up prompt hands you those memories in full. Your identity comes from your API key; never pass it in arguments.';

/** The instructions, with what channel events are when the entry offers them (Claude Code puts them in the system prompt). */
export function instructionsFor(channel: boolean): string {
  return channel ? `${INSTRUCTIONS}\n\n${CHANNEL_INSTRUCTIONS}` : INSTRUCTIONS;
}

/** What `server/discover` advertises: resource updates and list changes through subscriptions/listen. */
export const STATELESS_CAPABILITIES = {
  tools: { listChanged: false },
  resources: { subscribe: true, listChanged: true },
  prompts: { listChanged: false },
};

/** What `initialize` advertises: the same, plus the hyphae/diffs extension (GET /mcp, stdio after initialize). */
export const HANDSHAKE_CAPABILITIES = {
  ...STATELESS_CAPABILITIES,
  experimental: { [DIFFS_CAPABILITY]: {} },
};

/** …and Claude Code's channel when the entry offers it: its presence is what makes Claude Code listen. */
export const HANDSHAKE_CAPABILITIES_WITH_CHANNEL = {
  ...STATELESS_CAPABILITIES,
  experimental: { [DIFFS_CAPABILITY]: {}, [CHANNEL_CAPABILITY]: {} },
};

export const SERVER_DESCRIPTION: McpServerDescription = {
  instructions: instructionsFor,
  handshakeCapabilities: (channel) => (channel ? HANDSHAKE_CAPABILITIES_WITH_CHANNEL : HANDSHAKE_CAPABILITIES),
  statelessCapabilities: STATELESS_CAPABILITIES,
};
