/** What the server keeps of each recall and query so it can be judged later, and how judgements are reported (docs/feedback.md). */
import { z } from 'zod';
import { onOff } from './setting-parsers.js';
import { setting } from './setting.js';

export const feedbackSettings = {
  recallLogText: setting({
    env: 'HYPHAE_RECALL_LOG_TEXT',
    default: 'on',
    parse: onOff,
    doc: 'keep each recall\'s query text with its `request_id` (docs/feedback.md); `off` keeps only its SHA-256 (the console then shows no query)',
  }),
  recallLogRetentionDays: setting({
    env: 'HYPHAE_RECALL_LOG_RETENTION_DAYS',
    default: '7',
    parse: z.coerce.number().min(0.001).max(3650),
    doc: 'how long a recall\'s `request_id` can be judged: its log row and the feedback on it are removed after this',
  }),
  metricsTenantLabel: setting({
    env: 'HYPHAE_METRICS_TENANT_LABEL',
    default: 'off',
    parse: onOff,
    doc: 'label the `hyphae_feedback_*` counters by tenant too (docs/feedback.md): one series per tenant and sender label, so only with few tenants',
  }),
} as const;
