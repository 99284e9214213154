/**
 * The runtime's environment contract: every variable the wiring and the local runtime read for
 * themselves, with its parser and default. Numbers go through the core's one number parser
 * (core/settings.ts parseNumber), the same the providers and the ratchet policy use. (Provider
 * credentials and the settings each provider parses in its own module are checked by building the
 * provider: see wiring/provider-configuration.ts.)
 */
import { parseNumber, type NumberRule } from '../core/settings.js';
import { INBOX_TTL_VARIABLE } from '../core/inbox-ttl.js';
import { DEFAULT_INBOX_TTL_DAYS, INBOX_TABLE, QUEUE_NAMES, SUPPRESSION_TABLE } from './tables.js';

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

export const NUMBER_VARIABLES = {
  [V.inboxTtlDays]: { default: DEFAULT_INBOX_TTL_DAYS, expected: 'a non-negative number of days', min: 0 },
  [V.secretsCacheSeconds]: { default: 60, expected: 'a non-negative number of seconds', min: 0 },
  [V.port]: { default: 3000, expected: 'a whole number from 0 to 65535 (0 picks a free port)', min: 0, max: 65_535, integer: true },
} as const satisfies Record<string, NumberRule>;

export type NumberVariableName = keyof typeof NUMBER_VARIABLES;

export function readNumber(env: Env, name: NumberVariableName): number {
  return parseNumber(name, env[name], NUMBER_VARIABLES[name]);
}

interface NameVariable {
  pattern: RegExp;
  expected: string;
}

/** Names the runtime creates or addresses resources under; unset means the default name. */
export const NAME_VARIABLES = {
  [V.inboxTable]: { pattern: /^[A-Za-z0-9_.-]{3,255}$/, expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)" },
  [V.suppressionTable]: { pattern: /^[A-Za-z0-9_.-]{3,255}$/, expected: "3-255 letters, digits, '_', '-' or '.' (a DynamoDB table name)" },
  [V.queueName]: { pattern: /^[A-Za-z0-9_-]{1,76}$/, expected: "1-76 letters, digits, '_' or '-' (an SQS queue name, before the -dlq suffix)" },
  [V.dynamoEndpoint]: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
  [V.sqsEndpoint]: { pattern: /^https?:\/\/[^\s/]+/, expected: 'an http(s) URL' },
} as const satisfies Record<string, NameVariable>;

export const NAME_DEFAULTS = {
  [V.inboxTable]: INBOX_TABLE.defaultName,
  [V.suppressionTable]: SUPPRESSION_TABLE.defaultName,
  [V.queueName]: QUEUE_NAMES.defaultName,
} as const;

/** Problems with the name variables that are set (blank endpoints and queue name count as unset). */
export function checkNames(env: Env): string[] {
  return Object.entries(NAME_VARIABLES).flatMap(([name, rule]) => {
    const value = env[name];
    const unset = value === undefined || (value === '' && name !== V.inboxTable && name !== V.suppressionTable);
    return unset || rule.pattern.test(value) ? [] : [`${name} must be ${rule.expected}, got ${JSON.stringify(value)}`];
  });
}
