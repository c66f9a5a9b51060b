/**
 * Near-duplicate fixture (issue 17, item 2): pairs of memory statements an agent might store.
 * A `restatement` pair says the same thing in other words — storing the second should reinforce
 * the first. A `distinct` pair is about the same subject but says something else (another value,
 * the opposite, another aspect) — storing the second must create a cell of its own. The default
 * near-duplicate similarity of each embedder is chosen from these (bench/dedup-bench.ts reports
 * the confusion counts). Written for Hyphae; not taken from any public data set.
 */
export interface StatementPair {
  readonly first: string;
  readonly second: string;
}

export const RESTATEMENT_PAIRS: readonly StatementPair[] = [
  { first: 'User sessions are stored in PostgreSQL.', second: 'We keep user sessions in PostgreSQL.' },
  { first: 'Production deploys run every night at 2am.', second: 'Every night at 2am a production deploy runs.' },
  { first: 'Invoices are emailed to customers as PDF attachments.', second: 'Customers receive their invoices by email as PDF attachments.' },
  { first: 'API keys are rotated every ninety days.', second: 'We rotate API keys every 90 days.' },
  { first: 'The mobile app supports iOS 16 and later only.', second: 'Only iOS 16 or newer is supported by the mobile app.' },
  { first: 'The staging database is restored from a snapshot every Monday.', second: 'Every Monday the staging database gets restored from a snapshot.' },
  { first: 'We chose Kafka over RabbitMQ because we need to replay old events.', second: 'Kafka was picked instead of RabbitMQ since we must be able to replay past events.' },
  { first: 'Passwords are hashed with argon2id before they are stored.', second: 'Before storing passwords we hash them with argon2id.' },
  { first: 'The frontend is written in TypeScript with React.', second: 'Our frontend uses React and is written in TypeScript.' },
  { first: 'Backups are copied to a second region every six hours.', second: 'Every six hours the backups are copied to another region.' },
  { first: 'The search service times out after three seconds.', second: 'Search requests time out after 3 seconds.' },
  { first: 'Feature flags are managed in LaunchDarkly.', second: 'We manage our feature flags with LaunchDarkly.' },
  { first: 'Logs are retained for thirty days and then deleted.', second: 'Logs are kept for 30 days, after which they are deleted.' },
  { first: 'The payment provider is Stripe.', second: 'We use Stripe as our payment provider.' },
  { first: 'Docker images are built on every merge to main.', second: 'Each merge to main triggers a Docker image build.' },
  { first: 'Each pull request needs two approvals before merging.', second: 'A pull request requires two approvals before it can be merged.' },
  { first: 'The VPN is required to reach internal dashboards.', second: 'Internal dashboards can only be reached through the VPN.' },
  { first: 'We moved CI from Jenkins to GitHub Actions.', second: 'CI was migrated from Jenkins to GitHub Actions.' },
  { first: 'Email notifications are sent through Amazon SES.', second: 'We send email notifications via Amazon SES.' },
  { first: 'The Android build requires JDK 17.', second: 'JDK 17 is needed to build the Android app.' },
  { first: 'The on-call engineer is paged through Opsgenie.', second: 'Opsgenie pages the engineer on call.' },
  { first: 'Customer data must stay in EU data centres.', second: 'Customer data has to remain in data centres inside the EU.' },
  { first: 'Refunds are only possible within fourteen days of purchase.', second: 'A refund can only be issued within 14 days of the purchase.' },
  { first: 'GraphQL was rejected because caching it at the CDN was too hard.', second: 'We rejected GraphQL since it was too hard to cache at the CDN.' },
  { first: 'Terraform manages all cloud infrastructure; manual changes are forbidden.', second: 'All cloud infrastructure is managed by Terraform and manual changes are not allowed.' },
  { first: 'Error tracking uses Sentry.', second: 'We track errors with Sentry.' },
  { first: 'The recommendation model is retrained every Sunday.', second: 'Every Sunday we retrain the recommendation model.' },
  { first: 'The legacy billing system runs on a COBOL mainframe.', second: 'Our old billing system still runs on a mainframe written in COBOL.' },
  { first: 'Our SLA promises 99.9% uptime each month.', second: 'The SLA guarantees 99.9 percent monthly uptime.' },
  { first: 'Design files live in Figma.', second: 'The design files are kept in Figma.' },
  { first: 'Security patches are applied to servers within 48 hours of release.', second: 'Servers get security patches within 48 hours after they are released.' },
  { first: 'The orders table is partitioned by month.', second: 'We partition the orders table monthly.' },
  { first: 'Rate limiting allows 100 requests per minute per API key.', second: 'Each API key may make 100 requests a minute before it is rate limited.' },
  { first: 'The config service must never be restarted during business hours.', second: 'Never restart the config service during business hours.' },
  { first: 'Redis is used as a cache only, never as the source of truth.', second: 'We only use Redis as a cache; it is never the source of truth.' },
  { first: 'Database migrations must be backwards compatible with the previous release.', second: 'Every database migration has to stay compatible with the previous release.' },
  { first: 'The checkout flow is flaky on Safari because of third-party cookies.', second: "Third-party cookies make the checkout flow flaky in Safari." },
  { first: 'Integration tests run against a real PostgreSQL, not a mock.', second: 'Our integration tests use a real PostgreSQL instead of a mock.' },
  { first: 'The team prefers small pull requests under 400 lines.', second: 'Small pull requests of less than 400 lines are preferred by the team.' },
  { first: 'Webhooks are retried five times with exponential backoff.', second: 'Failed webhooks get five retries with exponential backoff.' },
  { first: 'The image service stores uploads in an S3 bucket.', second: 'Uploads from the image service are stored in an S3 bucket.' },
  { first: 'Timestamps in the API are always UTC in ISO 8601 format.', second: 'The API always returns timestamps in UTC, formatted as ISO 8601.' },
  { first: 'Memory leaks in the worker were caused by an unbounded cache.', second: 'An unbounded cache caused the memory leaks in the worker.' },
  { first: 'Release notes are written by the product manager.', second: 'The product manager writes the release notes.' },
  { first: 'The monolith is being split into services one domain at a time.', second: 'We are splitting the monolith into services, one domain after another.' },
];

export const DISTINCT_PAIRS: readonly StatementPair[] = [
  { first: 'User sessions are stored in PostgreSQL.', second: 'User sessions used to be stored in Redis.' },
  { first: 'Production deploys run every night at 2am.', second: 'Production deploys are frozen during the last week of December.' },
  { first: 'Invoices are emailed to customers as PDF attachments.', second: 'Invoices are generated on the first day of each month.' },
  { first: 'API keys are rotated every ninety days.', second: 'API keys are stored hashed in the database.' },
  { first: 'The mobile app supports iOS 16 and later only.', second: 'The mobile app is released to the stores every two weeks.' },
  { first: 'The staging database is restored from a snapshot every Monday.', second: 'The staging database runs on a smaller instance than production.' },
  { first: 'We chose Kafka over RabbitMQ because we need to replay old events.', second: 'Kafka topics keep events for seven days.' },
  { first: 'Passwords are hashed with argon2id before they are stored.', second: 'Passwords must be at least twelve characters long.' },
  { first: 'The frontend is written in TypeScript with React.', second: 'The frontend is deployed to a CDN.' },
  { first: 'Backups are copied to a second region every six hours.', second: 'Restoring a backup takes about forty minutes.' },
  { first: 'The search service times out after three seconds.', second: 'The search service is built on Elasticsearch.' },
  { first: 'Feature flags are managed in LaunchDarkly.', second: 'Feature flags older than three months must be removed.' },
  { first: 'Logs are retained for thirty days and then deleted.', second: 'Logs are shipped to Loki by a sidecar.' },
  { first: 'The payment provider is Stripe.', second: 'Payments in India go through Razorpay.' },
  { first: 'Docker images are built on every merge to main.', second: 'Docker images are scanned for vulnerabilities before release.' },
  { first: 'Each pull request needs two approvals before merging.', second: 'Pull requests are squashed when they are merged.' },
  { first: 'The VPN is required to reach internal dashboards.', second: 'The VPN client must be updated before Friday.' },
  { first: 'We moved CI from Jenkins to GitHub Actions.', second: 'GitHub Actions runners are self-hosted on our Kubernetes cluster.' },
  { first: 'Email notifications are sent through Amazon SES.', second: 'Users can turn off email notifications in their settings.' },
  { first: 'The Android build requires JDK 17.', second: 'The Android build takes twelve minutes on CI.' },
  { first: 'The on-call engineer is paged through Opsgenie.', second: 'The on-call rotation changes every Tuesday.' },
  { first: 'Customer data must stay in EU data centres.', second: 'Customer data is deleted thirty days after an account is closed.' },
  { first: 'Refunds are only possible within fourteen days of purchase.', second: 'Refunds are paid back to the original card.' },
  { first: 'GraphQL was rejected because caching it at the CDN was too hard.', second: 'The public API is REST with JSON bodies.' },
  { first: 'Terraform manages all cloud infrastructure; manual changes are forbidden.', second: 'Terraform state is stored in an S3 bucket with locking.' },
  { first: 'Error tracking uses Sentry.', second: 'Sentry alerts go to the incidents channel.' },
  { first: 'The recommendation model is retrained every Sunday.', second: 'The recommendation model is served from a GPU node.' },
  { first: 'The legacy billing system runs on a COBOL mainframe.', second: 'The legacy billing system will be retired next year.' },
  { first: 'Our SLA promises 99.9% uptime each month.', second: 'Our SLA gives customers credits when uptime is missed.' },
  { first: 'Design files live in Figma.', second: 'Designs must be reviewed by accessibility before handoff.' },
  { first: 'Security patches are applied to servers within 48 hours of release.', second: 'Servers are replaced rather than patched in place.' },
  { first: 'The orders table is partitioned by month.', second: 'The orders table has an index on customer id.' },
  { first: 'Rate limiting allows 100 requests per minute per API key.', second: 'Rate limiting is enforced at the load balancer.' },
  { first: 'The config service must never be restarted during business hours.', second: 'The config service reads its settings from etcd.' },
  { first: 'Redis is used as a cache only, never as the source of truth.', second: 'Redis runs with three replicas behind Sentinel.' },
  { first: 'Database migrations must be backwards compatible with the previous release.', second: 'Database migrations run automatically when the service starts.' },
  { first: 'The checkout flow is flaky on Safari because of third-party cookies.', second: 'The checkout flow was redesigned to fit on one page.' },
  { first: 'Integration tests run against a real PostgreSQL, not a mock.', second: 'Integration tests take twenty minutes on CI.' },
  { first: 'The team prefers small pull requests under 400 lines.', second: 'The team reviews pull requests within one working day.' },
  { first: 'Webhooks are retried five times with exponential backoff.', second: 'Webhooks are signed with an HMAC of the body.' },
  { first: 'The image service stores uploads in an S3 bucket.', second: 'The image service resizes uploads to three sizes.' },
  { first: 'Timestamps in the API are always UTC in ISO 8601 format.', second: 'The API returns amounts in cents as integers.' },
  { first: 'Memory leaks in the worker were caused by an unbounded cache.', second: 'The worker restarts when it uses more than 2 GB.' },
  { first: 'Release notes are written by the product manager.', second: 'Release notes are published on the changelog page.' },
  { first: 'The monolith is being split into services one domain at a time.', second: 'The monolith is deployed twice a week.' },
];

/**
 * Same words, another claim: a changed value or the opposite. No embedder here separates most of
 * these from restatements; they are reported apart, and such a change is what `supersedes` is for.
 */
export const CONTRADICTION_PAIRS: readonly StatementPair[] = [
  { first: 'User sessions are stored in PostgreSQL.', second: 'User sessions are stored in Redis.' },
  { first: 'Production deploys run every night at 2am.', second: 'Production deploys run every night at 6am.' },
  { first: 'API keys are rotated every ninety days.', second: 'API keys are never rotated.' },
  { first: 'The search service times out after three seconds.', second: 'The search service times out after thirty seconds.' },
  { first: 'Each pull request needs two approvals before merging.', second: 'Pull requests can be merged without any approval.' },
  { first: 'Redis is used as a cache only, never as the source of truth.', second: 'Redis is the source of truth for carts.' },
  { first: 'The Android build requires JDK 17.', second: 'The Android build requires JDK 21.' },
  { first: 'Logs are retained for thirty days and then deleted.', second: 'Logs are retained for one year.' },
];
