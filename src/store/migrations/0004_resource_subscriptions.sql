-- MCP resource subscriptions (resources/subscribe over HTTP). HTTP is stateless and any replica may
-- answer a request, so a subscription lives here, keyed by the agent and the MCP session id the
-- server minted at initialize ('' for a client that sends none); the replica holding the agent's
-- GET /mcp stream reads it when a diff lands.
CREATE TABLE resource_subscriptions (
  tenant_id  text NOT NULL,
  agent      text NOT NULL,
  session    text NOT NULL,
  resource   text NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, agent, session, resource)
);
