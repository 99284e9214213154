/**
 * The runtime's environment contract: every variable the wiring and the local runtime read for
 * themselves, with its parser and default. Numbers go through the core's one number parser
 * (core/settings.ts parseNumber), the same the providers and the ratchet policy use. (Provider
 * credentials and the settings each provider parses in its own module are checked by building the
 * provider: see wiring/provider-configuration.ts.)
 */

import { INBOX_TTL_RULE, INBOX_TTL_VARIABLE } from '../core/inbox-ttl.js';
import { type NumberRule, parseNumber } from '../core/settings.js';
import { INBOX_TABLE, QUEUE_NAMES, REPUTATION_TABLE, resourceNames, SUPPRESSION_TABLE } from './tables.js';

export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The variables the wiring and the local runtime read for themselves, spelled once: the wiring reads
 * and the stack (lib/constructs/environments.ts) sets them through these names. A core module's own
 * settings are spelled where they are parsed (TOPIC_ALIASES_VARIABLE, SOFT_BOUNCE_VARIABLES, ...), and
 * each provider declares its settings and credential variables on its definition.
 */
export const RUNTIME_VARIABLE = {
  region: 'AWS_REGION',
  defaultRegion: 'AWS_DEFAULT_REGION',
  inboxTable: 'INBOX_TABLE',
  suppressionTable: 'SUPPRESSION_TABLE',
  reputationTable: 'REPUTATION_TABLE',
  reputationTopicArn: 'REPUTATION_TOPIC_ARN',
  queueUrl: 'QUEUE_URL',
  queueName: 'QUEUE_NAME',
  /** The SES feed: the SQS queue the SES topic delivers to, and its dead-letter queue (names locally, URL on AWS). */
  sesQueueName: 'SES_QUEUE_NAME',
  sesQueueUrl: 'SES_QUEUE_URL',
  sesDeadLetterQueue: 'SES_DEAD_LETTER_QUEUE',
  sesDeadLetterQueueUrl: 'SES_DEAD_LETTER_QUEUE_URL',
  /** Sync: the sync queue and its dead letters (URLs on AWS; locally the queue's name, default ratchet-sync). */
  syncQueueUrl: 'SYNC_QUEUE_URL',
  syncDeadLetterQueueUrl: 'SYNC_DEAD_LETTER_QUEUE_URL',
  syncQueueName: 'SYNC_QUEUE_NAME',
  dynamoEndpoint: 'DYNAMODB_ENDPOINT',
  sqsEndpoint: 'SQS_ENDPOINT',
  inboxTtlDays: INBOX_TTL_VARIABLE,
  secretsCacheSeconds: 'SECRETS_CACHE_SECONDS',
  port: 'PORT',
  logLevel: 'LOG_LEVEL',
  snsCertDir: 'SNS_CERT_DIR',
} as const;

const V = RUNTIME_VARIABLE;

export type RuntimeVariableName = (typeof RUNTIME_VARIABLE)[keyof typeof RUNTIME_VARIABLE];

/** What `LOG_LEVEL` accepts, case-insensitive (Powertools' levels); unset means INFO. */
export const LOG_LEVEL_VALUES = ['DEBUG', 'INFO', 'WARN', 'ERROR', 'SILENT', 'CRITICAL', 'TRACE'] as const;

/** Who reads a variable: `npm start` and the CLI against it, the deployed stack (its Lambdas, the CLI against AWS), or both. */
export type VariableScope = 'local' | 'aws' | 'both';

/** A variable's line in docs/configuration.md (rendered by tools/env-table.ts: `npm run docs:env`). */
export interface VariableDoc {
  readonly describe: string;
  readonly applies: VariableScope;
  /** The default, where no parser rule below declares one. */
  readonly default?: string;
  /** What it accepts, where no parser rule below declares it. */
  readonly expected?: string;
}

/** One line per runtime variable: a variable declared above without one is listed undescribed, and a test says so. */
export const RUNTIME_VARIABLE_DOCS: Partial<Record<RuntimeVariableName, VariableDoc>> = {
  [V.region]: { applies: 'both', default: '`us-east-1`', describe: 'Region for the SDK clients and ARNs' },
  [V.defaultRegion]: { applies: 'both', describe: `Read when \`${V.region}\` is unset` },
  [V.inboxTable]: { applies: 'both', describe: 'The inbox table: dedup keys and compressed raw payloads' },
  [V.suppressionTable]: {
    applies: 'both',
    describe:
      'The suppression table sending code reads; also read by the CLI and the `@ratchet-email/ratchet/client` package',
  },
  [V.reputationTable]: {
    applies: 'both',
    describe:
      'The reputation counters and sender states (docs/reputation.md): the stack sets it on the counter (the inbox stream consumer) and the evaluator; `npm start` always counts; read by `ratchet reputation` and `senderStatus`',
  },
  [V.reputationTopicArn]: {
    applies: 'aws',
    expected: 'an SNS topic ARN',
    describe:
      "The `<prefix>-reputation` topic the evaluator announces each change of a sender's state on; set by the stack",
  },
  [V.queueUrl]: {
    applies: 'aws',
    expected: 'an SQS queue URL',
    describe: 'The events queue (stack output `QueueUrl`): the stack sets it on the edge; the CLI reads it against AWS',
  },
  [V.queueName]: {
    applies: 'local',
    describe: 'The events queue `npm start` creates; its DLQ is the same name with `-dlq`',
  },
  [V.sesQueueName]: {
    applies: 'local',
    default: '`ratchet-ses-notifications`',
    describe: 'The SES feed queue `npm start` creates and polls, as the SES topic feeds it on AWS',
  },
  [V.sesQueueUrl]: { applies: 'aws', expected: 'an SQS queue URL', describe: 'The SES feed queue on AWS' },
  [V.sesDeadLetterQueue]: {
    applies: 'both',
    default: '`ratchet-ses-dead-letters`',
    expected: 'an SQS queue name or URL',
    describe:
      'The SES dead-letter queue (stack output `SesDeadLetterQueueName`): `npm start` creates it; `ratchet ses redrive` and `doctor` read it',
  },
  [V.sesDeadLetterQueueUrl]: {
    applies: 'aws',
    expected: 'an SQS queue URL',
    describe: 'The SES dead-letter queue on AWS',
  },
  [V.syncQueueUrl]: {
    applies: 'both',
    describe:
      'The sync queue the consumer and the sweeper send changes to, and the sync worker drains; the CLI sends the fast path to it (with `npm start`, the one `npm start` made)',
  },
  [V.syncDeadLetterQueueUrl]: {
    applies: 'both',
    describe: 'Where a change goes once its retries (at least an hour) are spent; `ratchet sync retry` redrives it',
  },
  [V.syncQueueName]: {
    applies: 'both',
    default: '`ratchet-sync`',
    describe:
      'The sync queue `npm start` creates when SYNC_PROVIDERS is set; the CLI looks it up by this name on SQS_ENDPOINT or AWS when SYNC_QUEUE_URL is unset (the stack names it `<resourcePrefix>-sync`; on AWS, unset, the prefix is the one in SUPPRESSION_TABLE)',
  },
  [V.dynamoEndpoint]: {
    applies: 'local',
    default: 'the embedded dynalite',
    describe:
      'When set, used instead of the embedded emulator (LocalStack, a dynalite you run, or a real endpoint); the CLI then targets it',
  },
  [V.sqsEndpoint]: {
    applies: 'local',
    default: 'the embedded fauxqs',
    describe: 'When set, used instead of the embedded SQS emulator',
  },
  [V.inboxTtlDays]: {
    applies: 'both',
    describe:
      'How long inbox rows (raw payloads, dedup keys) live (CDK context `inboxTtlDays`); must exceed every signature window by an hour',
  },
  [V.secretsCacheSeconds]: {
    applies: 'aws',
    describe: 'How long a secret read from Secrets Manager is cached: a rotation takes effect within this time',
  },
  [V.port]: { applies: 'local', describe: 'The local HTTP port, always on 127.0.0.1' },
  [V.logLevel]: {
    applies: 'both',
    default: '`INFO`',
    expected: `${LOG_LEVEL_VALUES.join(', ')} (any case)`,
    describe: 'INFO is one JSON line per request (edge) or per batch (consumer); DEBUG adds a line per event',
  },
  [V.snsCertDir]: {
    applies: 'both',
    default:
      'unset: fetched from AWS over HTTPS; locally, while SES runs on demo credentials, `.data/sns-certs` with the demo certificate',
    expected: 'a directory',
    describe: 'Pinned SNS signing certificates, each named like its `SigningCertURL` basename',
  },
};

export const NUMBER_VARIABLES = {
  [V.inboxTtlDays]: INBOX_TTL_RULE,
  [V.secretsCacheSeconds]: { default: 60, expected: 'a non-negative number of seconds', min: 0 },
  [V.port]: {
    default: 3000,
    expected: 'a whole number from 0 to 65535 (0 picks a free port)',
    min: 0,
    max: 65_535,
    integer: true,
  },
} as const satisfies Record<string, NumberRule>;

export type NumberVariableName = keyof typeof NUMBER_VARIABLES;

export function readNumber(env: Env, name: NumberVariableName): number {
  return parseNumber(name, env[name], NUMBER_VARIABLES[name]);
}

interface NameVariable {
  pattern: RegExp;
  expected: string;
}

/**
 * An SQS queue URL: SQS's own (`https://sqs.<region>.amazonaws.com/<account>/<name>`) and an emulator's
 * (`http://127.0.0.1:<port>/<account>/<name>`) alike: the scheme, a host, and a path that ends in a queue name.
 */
const QUEUE_URL: NameVariable = {
  pattern: /^https?:\/\/[^\s/]+\/(?:[^\s/]+\/)+[A-Za-z0-9_-]{1,80}$/,
  expected: 'an SQS queue URL: http(s)://host/account/queue-name',
};

/** Names and URLs the runtime creates or addresses resources under; unset means the default name (or none). */
export const NAME_VARIABLES = {
  [V.inboxTable]: {
    pattern: /^[A-Za-z0-9_.-]{3,255}$/,
    expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)",
  },
  [V.suppressionTable]: {
    pattern: /^[A-Za-z0-9_.-]{3,255}$/,
    expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)",
  },
  [V.reputationTable]: {
    pattern: /^[A-Za-z0-9_.-]{3,255}$/,
    expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)",
  },
  [V.queueName]: {
    pattern: /^[A-Za-z0-9_-]{1,76}$/,
    expected: "1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix)",
  },
  [V.sesQueueName]: {
    pattern: /^[A-Za-z0-9_-]{1,80}$/,
    expected: "1-80 letters, digits, '_' or '-' (an SQS queue name)",
  },
  [V.sesDeadLetterQueue]: {
    pattern: /^[A-Za-z0-9_-]{1,80}$/,
    expected: "1-80 letters, digits, '_' or '-' (an SQS queue name)",
  },
  [V.syncQueueName]: {
    pattern: /^[A-Za-z0-9_-]{1,76}$/,
    expected: "1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dead-letters suffix)",
  },
  // The sync queue's: read by the CLI beside any target, and by the consumer and the sync worker on AWS.
  [V.syncQueueUrl]: QUEUE_URL,
  [V.syncDeadLetterQueueUrl]: QUEUE_URL,
  [V.dynamoEndpoint]: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
  [V.sqsEndpoint]: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
} as const satisfies Record<string, NameVariable>;

export const NAME_DEFAULTS = {
  [V.inboxTable]: INBOX_TABLE.defaultName,
  [V.suppressionTable]: SUPPRESSION_TABLE.defaultName,
  [V.reputationTable]: REPUTATION_TABLE.defaultName,
  [V.queueName]: QUEUE_NAMES.defaultName,
  [V.sesQueueName]: resourceNames().sesQueue,
  [V.sesDeadLetterQueue]: resourceNames().sesDeadLetterQueue,
} as const;

/**
 * Problems with the name variables that are set (blank endpoints, queue names and URLs count as unset);
 * `only`: just these.
 */
export function checkNames(env: Env, only?: readonly (keyof typeof NAME_VARIABLES)[]): string[] {
  const rules: Array<[string, NameVariable]> = Object.entries(NAME_VARIABLES);
  return rules.flatMap(([name, rule]) => {
    if (only !== undefined && !(only as readonly string[]).includes(name)) return [];
    const value = env[name];
    const unset = value === undefined || (value === '' && name !== V.inboxTable && name !== V.suppressionTable);
    return unset || rule.pattern.test(value) ? [] : [`${name} must be ${rule.expected}, got ${JSON.stringify(value)}`];
  });
}
