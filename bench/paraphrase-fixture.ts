/**
 * Recall quality fixture for `npm run bench` (embed section): 48 memories, each with a question
 * that asks for it in other words (few or no shared content words), and a near-miss distractor
 * that shares the question's surface words but answers something else. An embedder is scored by
 * where each question's memory ranks among all 96 memories and distractors (top-1, top-5).
 * Written for Hyphae; not taken from any public data set.
 */
export interface ParaphraseCase {
  readonly memory: string;
  readonly question: string;
  readonly distractor: string;
}

export const PARAPHRASE_CASES: readonly ParaphraseCase[] = [
  { memory: 'User sessions are persisted in PostgreSQL rather than Redis.', question: 'Where do we keep login state between page loads?', distractor: 'The login page loads a captcha after three wrong passwords.' },
  { memory: 'Production deploys run automatically every night at 2am.', question: 'When does new code go live?', distractor: 'The code review bot goes live on new repositories after a week.' },
  { memory: 'Invoices are emailed to customers as PDF attachments.', question: 'How do clients get their bills?', distractor: 'Clients get a welcome bonus on their first purchase.' },
  { memory: 'The office dog is called Biscuit.', question: 'What is the name of the pet at work?', distractor: 'The name of the work queue is set in the config file.' },
  { memory: 'API keys are rotated every ninety days by the security team.', question: 'How often are credentials for services replaced?', distractor: 'Services are replaced by newer versions when the vendor ends support.' },
  { memory: 'Our mobile app supports iOS 16 and later only.', question: 'Which phone operating system versions can run the application?', distractor: 'The application form asks which operating system you use at home.' },
  { memory: 'The staging database is wiped and restored from a snapshot every Monday.', question: "How often is the test environment's data reset?", distractor: 'Environment variables for tests are reset by the CI runner.' },
  { memory: 'Customer support is available by chat from 9 to 5 on weekdays.', question: 'When can users reach a human for help?', distractor: 'Users can reach the settings page from the help menu.' },
  { memory: 'We chose Kafka over RabbitMQ because we need to replay old events.', question: 'Why did the team pick that message broker?', distractor: 'The message from the team lead asked everyone to pick a lunch spot.' },
  { memory: 'Passwords are hashed with argon2id before they are stored.', question: 'How do we protect user secrets at rest?', distractor: 'The REST API protects user endpoints with rate limits.' },
  { memory: 'The frontend is written in TypeScript with React.', question: 'What language and framework is the web UI built with?', distractor: 'The UI team built a framework for translating the language strings.' },
  { memory: 'Backups are copied to a second region every six hours.', question: 'How frequently is a disaster-recovery copy of our data made?', distractor: 'Data made by the analytics pipeline is shown on dashboards hourly.' },
  { memory: 'New hires get a laptop and a buddy on their first day.', question: 'What does someone joining the company receive at the start?', distractor: 'The company receives a tax refund at the start of each year.' },
  { memory: 'The search service times out after three seconds.', question: 'How long before a lookup request gives up?', distractor: 'Lookup tables are regenerated before each request to the pricing engine.' },
  { memory: 'Feature flags are managed in LaunchDarkly.', question: 'Which tool toggles unfinished functionality on and off?', distractor: 'Unfinished tickets are moved to the next sprint on Fridays.' },
  { memory: 'The CEO prefers written proposals over slide decks.', question: 'What format does the chief executive like for pitches?', distractor: 'The format of the executive summary is one page.' },
  { memory: 'Load tests showed the API handles 5,000 requests per second on one node.', question: 'What throughput can a single server sustain?', distractor: 'A single server room holds the old tape drives.' },
  { memory: 'Logs are retained for thirty days and then deleted.', question: 'How long do we keep application output records?', distractor: 'Records of application fees are kept by finance.' },
  { memory: 'The payment provider is Stripe.', question: 'Who processes our card transactions?', distractor: 'Transactions in the ledger are processed in nightly batches.' },
  { memory: 'Docker images are built on every merge to main.', question: 'When are container artifacts produced?', distractor: 'Container ships produce delays at the port every winter.' },
  { memory: 'The mobile team works from Lisbon, two hours ahead of London.', question: 'In which city are the phone app developers based?', distractor: 'The city council based its plan on a phone survey of developers.' },
  { memory: 'Each pull request needs two approvals before merging.', question: 'How many reviewers must sign off on a code change?', distractor: 'The code of conduct change was signed off by the board.' },
  { memory: 'The VPN is required to reach internal dashboards from home.', question: 'What do I need to see company metrics while working remotely?', distractor: 'Company metrics show that working remotely is popular.' },
  { memory: 'We moved from Jenkins to GitHub Actions last spring.', question: 'What replaced the old continuous integration server?', distractor: 'The old server rack was replaced with shelving.' },
  { memory: 'The cafeteria serves vegetarian food on Wednesdays.', question: 'Which day is the canteen meat-free?', distractor: 'The canteen is closed on public holidays.' },
  { memory: 'Email notifications are sent through Amazon SES.', question: 'Which service delivers our outgoing messages to inboxes?', distractor: 'The messages service delivers chat history to new devices.' },
  { memory: 'The data warehouse is Snowflake, loaded by Fivetran.', question: 'Where does analytics reporting pull its tables from?', distractor: 'The reporting line for analytics moved to the finance director.' },
  { memory: 'Quarterly planning happens in the first week of January, April, July and October.', question: 'When do we set goals for the next three months?', distractor: 'Goals for the next hackathon are set by the participants.' },
  { memory: 'The Android build requires JDK 17.', question: 'Which Java version do I need to compile the Google phone app?', distractor: 'The Google calendar app shows which version of the meeting notes is current.' },
  { memory: 'Uploaded images are resized to 1024 pixels wide by a background worker.', question: 'What happens to pictures after users send them?', distractor: 'Users send pictures of the team event to the social channel.' },
  { memory: 'The on-call engineer is paged through Opsgenie.', question: 'How is the person on duty alerted about an outage?', distractor: 'The duty roster for the outage review meeting is on the wiki.' },
  { memory: 'Customer data must stay in EU data centres under our contracts.', question: 'Can we host client records in America?', distractor: 'Client records of American football games are kept by the sports club.' },
  { memory: 'The public website is a static site hosted on Netlify.', question: 'Where is the marketing homepage served from?', distractor: 'The marketing team served coffee at the homepage launch party.' },
  { memory: 'Refunds are only possible within fourteen days of purchase.', question: 'How long does a buyer have to get money back?', distractor: 'A buyer got money back from the vending machine yesterday.' },
  { memory: 'GraphQL was rejected because caching it at the CDN was too hard.', question: "Why didn't we adopt that query language for the API?", distractor: 'The query language course for the API team starts next week.' },
  { memory: 'The main database has 64 GB of RAM and 16 vCPUs.', question: 'How much memory does the primary SQL server have?', distractor: 'Memory leaks in the primary worker were fixed last release.' },
  { memory: 'Translations are handled by a freelance agency in Berlin.', question: 'Who localises the product into other languages?', distractor: 'Other languages besides English are spoken by half the product team.' },
  { memory: 'The weekly all-hands meeting is on Thursday at 4pm.', question: 'When does the whole company gather each week?', distractor: 'The whole company gathers feedback each week from surveys.' },
  { memory: 'Terraform manages all cloud infrastructure; manual changes are forbidden.', question: 'Can I tweak servers by hand in the console?', distractor: 'The hand-held game console was banned from the office.' },
  { memory: 'Error tracking uses Sentry, with alerts going to the #incidents channel.', question: 'Where do crash reports show up?', distractor: 'Weekly reports show up in the shared drive on Monday.' },
  { memory: 'The recommendation model is retrained every Sunday on the last 90 days of clicks.', question: 'How often is the suggestion algorithm refreshed?', distractor: 'The algorithm interview question was refreshed for new candidates.' },
  { memory: 'Parking at the office is free after 6pm.', question: 'When can I leave my car at work without paying?', distractor: 'I can leave work early on Fridays without asking.' },
  { memory: 'The legacy billing system runs on a COBOL mainframe.', question: 'What old technology does invoicing still depend on?', distractor: 'Old technology magazines are kept in the invoicing office.' },
  { memory: 'Interns are paid and get a mentor for the whole summer.', question: 'Do students on placement receive a salary?', distractor: 'Students on the placement exam receive their results in August.' },
  { memory: 'Our SLA promises 99.9% uptime each month.', question: 'What availability have we guaranteed to clients?', distractor: 'Clients guaranteed seats at the conference have been emailed.' },
  { memory: 'Design files live in Figma, organised by product area.', question: 'Where can I find the mockups for the screens?', distractor: 'The screens in the meeting rooms can be found on the floor plan.' },
  { memory: 'Security patches are applied to servers within 48 hours of release.', question: 'How quickly do we install fixes for vulnerabilities on machines?', distractor: 'Fixes for typos in the docs are installed with the next release.' },
  { memory: 'The team lunch budget is twenty euros per person.', question: 'How much can each of us spend on a shared meal?', distractor: 'Each of us can share a meal photo in the food channel.' },
];

export interface ParaphraseScore {
  /** Fraction of questions whose memory ranks first among the 48 memories. */
  readonly top1: number;
  /** Fraction whose memory ranks in the first five among the memories. */
  readonly top5: number;
  /** The same among memories and near-miss distractors (96 documents). */
  readonly top1WithDistractors: number;
  readonly top5WithDistractors: number;
}

/** Ranks every question's memory by cosine (the vectors are unit length); a tie counts against it. */
export function scoreParaphrases(memories: readonly Float32Array[], distractors: readonly Float32Array[], questions: readonly Float32Array[]): ParaphraseScore {
  const dot = (a: Float32Array, b: Float32Array): number => {
    let sum = 0;
    for (let i = 0; i < a.length; i++) sum += (a[i] ?? 0) * (b[i] ?? 0);
    return sum;
  };
  const counts = { top1: 0, top5: 0, top1WithDistractors: 0, top5WithDistractors: 0 };
  questions.forEach((question, i) => {
    const target = dot(question, memories[i] as Float32Array);
    const ahead = memories.filter((doc, j) => j !== i && dot(question, doc) >= target).length;
    const aheadWithDistractors = ahead + distractors.filter((doc) => dot(question, doc) >= target).length;
    if (ahead === 0) counts.top1 += 1;
    if (ahead < 5) counts.top5 += 1;
    if (aheadWithDistractors === 0) counts.top1WithDistractors += 1;
    if (aheadWithDistractors < 5) counts.top5WithDistractors += 1;
  });
  const n = questions.length;
  return { top1: counts.top1 / n, top5: counts.top5 / n, top1WithDistractors: counts.top1WithDistractors / n, top5WithDistractors: counts.top5WithDistractors / n };
}
