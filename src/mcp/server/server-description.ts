/** What this server says about itself, the same in every revision: its name, instructions and capabilities. */
import { DIFFS_CAPABILITY } from '../protocol/diff-extension.js';

export interface ServerInfo {
  readonly name: string;
  readonly version: string;
}

export const SERVER_NAME = 'hyphae';

export const INSTRUCTIONS =
  'Hyphae is shared memory for agents. Store what others should know (store), recall by meaning (recall, query), open a ' +
  'session per task (open_session, close_session), declare standing interests (place_beacon) and read what was gossiped to ' +
  'you (drain_inbox, pull_diffs). Results name cells by resource_link: read a cell\'s content as the resource ' +
  'hyphae://cells/{node_id}; hyphae://inbox shows what reached you and is not drained yet (subscribe to it to hear when a diff lands), ' +
  'and the catch_up prompt hands you those memories in full. Your identity comes from your API key; never pass it in arguments.';

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
