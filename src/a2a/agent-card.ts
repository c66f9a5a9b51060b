/**
 * Hyphae's A2A agent card: the three skills, JSON-RPC at `/a2a` with streaming (A2A 1.0, and 0.3
 * for clients that still speak it), and the same credentials as every other surface: an API key
 * in `x-hyphae-key` or as `Authorization: Bearer`, or — with OAuth configured — a bearer access token, whose authorization
 * server the protected-resource metadata names (RFC 9728). The card is public, as discovery
 * needs; it names the endpoint by the URL the caller reached this server at. A 0.3 client gets the
 * card in 0.3's shape.
 */
import { A2A_PROTOCOL_VERSION, type AgentCard, type AgentSkill, type SecurityRequirement, type SecurityScheme } from '@a2a-js/sdk';
import type { OAuthConfig } from '../core/oauth-config.js';
import { API_KEY_HEADER, resourceMetadataUrl } from '../surface-shared/index.js';
import { DEFAULT_CELL_TYPE, DEFAULT_SKILL } from './skill-selection.js';

export const A2A_PATH = '/a2a';
export const AGENT_CARD_URL_PATH = '/.well-known/agent-card.json';
export const API_KEY_SCHEME = 'hyphaeApiKey';
export const BEARER_SCHEME = 'hyphaeOAuth';
export const API_KEY_BEARER_SCHEME = 'hyphaeApiKeyBearer';
const API_KEY_DESCRIPTION = 'A Hyphae API key, the same as for MCP and REST';
const API_KEY_BEARER_DESCRIPTION = 'A Hyphae API key (it starts with hy_) sent as a bearer token instead of in x-hyphae-key';
const API_KEY_BEARER_FORMAT = 'Hyphae API key';

/** What the card says of OAuth: the issuer and where the protected-resource metadata is. */
export type CardOAuth = Pick<OAuthConfig, 'issuer' | 'resource'>;

function bearerDescription(oauth: CardOAuth): string {
  return `An OAuth access token from ${oauth.issuer} for ${oauth.resource}; the authorization server and scopes are in ${resourceMetadataUrl(oauth)}`;
}

const MODES = ['text/plain', 'application/json'];
export const LEGACY_PROTOCOL_VERSION = '0.3';

function skill(id: string, name: string, description: string, examples: string[], tags: string[]): AgentSkill {
  return { id, name, description, tags, examples, inputModes: MODES, outputModes: MODES, securityRequirements: [] };
}

const SKILL_CARDS: readonly AgentSkill[] = [
  skill(
    'remember',
    'Remember',
    `Store one memory cell in the shared memory. Send a data part {"skill":"remember","content":"…","cell_type":"Decision",` +
      `"salience":0.8} (the fields of the MCP store tool); text fills content, cell_type defaults to ${DEFAULT_CELL_TYPE}. ` +
      'Answers a message with the stored node.',
    ['{"skill":"remember","content":"The billing service retries webhooks 3 times","cell_type":"Fact"}'],
    ['memory', 'store', 'write'],
  ),
  skill(
    'recall',
    'Recall',
    `Semantic recall over the memories you may read. Plain text is a recall of that text (the default skill: ${DEFAULT_SKILL}); ` +
      'or a data part {"skill":"recall","query":"…","k":5,"cell_types":["Decision"]}. Answers a message with the hits ' +
      '(data part) and a readable list (text part).',
    ['what did we decide about webhook retries?', '{"skill":"recall","query":"webhook retries","k":3}'],
    ['memory', 'recall', 'search', 'read'],
  ),
  skill(
    'subscribe',
    'Subscribe to diffs',
    'A task that streams every diff gossiped to you (the beacons you placed) as artifact updates over ' +
      'SendStreamingMessage, until you cancel it. {"skill":"subscribe","after_seq":42} resumes after an inbox seq.',
    ['{"skill":"subscribe"}', '{"skill":"subscribe","after_seq":42}'],
    ['memory', 'diffs', 'live', 'stream'],
  ),
];

function securitySchemes(oauth: CardOAuth | undefined): Record<string, SecurityScheme> {
  const schemes: Record<string, SecurityScheme> = {
    [API_KEY_SCHEME]: { scheme: { $case: 'apiKeySecurityScheme', value: { description: API_KEY_DESCRIPTION, location: 'header', name: API_KEY_HEADER } } },
    [API_KEY_BEARER_SCHEME]: {
      scheme: { $case: 'httpAuthSecurityScheme', value: { description: API_KEY_BEARER_DESCRIPTION, scheme: 'Bearer', bearerFormat: API_KEY_BEARER_FORMAT } },
    },
  };
  if (oauth !== undefined) {
    schemes[BEARER_SCHEME] = { scheme: { $case: 'httpAuthSecurityScheme', value: { description: bearerDescription(oauth), scheme: 'Bearer', bearerFormat: 'JWT' } } };
  }
  return schemes;
}

/** Either credential is enough: each requirement is one alternative. */
function securityRequirements(oauth: CardOAuth | undefined): SecurityRequirement[] {
  const requirements: SecurityRequirement[] = [{ schemes: { [API_KEY_SCHEME]: { list: [] } } }, { schemes: { [API_KEY_BEARER_SCHEME]: { list: [] } } }];
  if (oauth !== undefined) requirements.push({ schemes: { [BEARER_SCHEME]: { list: [] } } });
  return requirements;
}

export function agentCard(baseUrl: string, version: string, oauth?: CardOAuth): AgentCard {
  return {
    name: 'Hyphae',
    description:
      'Shared memory for AI agents: typed memory cells in PostgreSQL + pgvector, recalled by meaning and ' +
      'gossiped as diffs to the agents whose beacons they match.',
    supportedInterfaces: [A2A_PROTOCOL_VERSION, LEGACY_PROTOCOL_VERSION].map((protocolVersion) => ({
      url: `${baseUrl}${A2A_PATH}`,
      protocolBinding: 'JSONRPC',
      tenant: '',
      protocolVersion,
    })),
    provider: undefined,
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    securitySchemes: securitySchemes(oauth),
    securityRequirements: securityRequirements(oauth),
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: [...SKILL_CARDS],
    signatures: [],
  };
}

/** The same card in A2A 0.3's JSON shape, for clients that ask for no version or for 0.3. */
export function legacyAgentCard(baseUrl: string, version: string, oauth?: CardOAuth): Record<string, unknown> {
  const card = agentCard(baseUrl, version, oauth);
  return {
    protocolVersion: '0.3.0',
    name: card.name,
    description: card.description,
    url: `${baseUrl}${A2A_PATH}`,
    preferredTransport: 'JSONRPC',
    version,
    capabilities: { streaming: true, pushNotifications: false },
    securitySchemes: {
      [API_KEY_SCHEME]: { type: 'apiKey', in: 'header', name: API_KEY_HEADER, description: API_KEY_DESCRIPTION },
      [API_KEY_BEARER_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: API_KEY_BEARER_FORMAT, description: API_KEY_BEARER_DESCRIPTION },
      ...(oauth === undefined ? {} : { [BEARER_SCHEME]: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: bearerDescription(oauth) } }),
    },
    security: [{ [API_KEY_SCHEME]: [] }, { [API_KEY_BEARER_SCHEME]: [] }, ...(oauth === undefined ? [] : [{ [BEARER_SCHEME]: [] }])],
    defaultInputModes: MODES,
    defaultOutputModes: MODES,
    skills: card.skills.map(({ id, name, description, tags, examples, inputModes, outputModes }) => ({ id, name, description, tags, examples, inputModes, outputModes })),
  };
}
