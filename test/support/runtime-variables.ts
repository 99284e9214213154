/**
 * Every variable the local runtime reads, with a value `npm start` must refuse, or the reason none
 * exists on one machine. Shared by the in-process contract test (test/unit/local/startup-contract.test.ts)
 * and the process test (test/integration/npm-start-process.test.ts).
 */
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { UNSUBSCRIBE_PROVIDER } from '../../lambdas/core/unsubscribe/provider.js';

/** Variable → a value it must refuse. */
export const BAD_VALUES: Record<string, string> = {
  PORT: 'abc',
  INBOX_TABLE: 'a',
  SUPPRESSION_TABLE: 'a',
  REPUTATION_TABLE: 'a',
  QUEUE_NAME: 'bad name!',
  DYNAMODB_ENDPOINT: 'localhost:8000',
  SQS_ENDPOINT: 'nope',
  INBOX_TTL_DAYS: '1',
  SECRETS_CACHE_SECONDS: '-1',
  LOG_LEVEL: 'verbose',
  SNS_CERT_DIR: '/nonexistent/ratchet-certs',
  SNS_TOPIC_ARNS: 'not-an-arn',
  SNS_MIN_SIGNATURE_VERSION: '3',
  SNS_MAX_AGE_SECONDS: 'soon',
  SNS_MAX_FUTURE_SECONDS: '-5',
  SENDGRID_PUBLIC_KEYS: 'not a key',
  SENDGRID_TOLERANCE_SECONDS: 'x',
  // Any non-empty key is a Mailgun key; a list that does not parse is not.
  MAILGUN_SIGNING_KEYS: '["unclosed',
  MAILGUN_TOLERANCE_SECONDS: 'x',
  POSTMARK_BASIC_AUTH: 'no-colon',
  POSTMARK_ALLOWED_IPS: 'not-an-ip',
  STANDARD_WEBHOOK_SECRETS: 'whsec_!!!',
  STANDARD_WEBHOOK_TOLERANCE_SECONDS: 'x',
  GENERIC_WEBHOOK_SECRETS: 'short',
  GENERIC_WEBHOOK_TOLERANCE_SECONDS: 'x',
  UNSUBSCRIBE_SECRETS: 'tooshort',
  UNSUBSCRIBE_TOKEN_MAX_AGE_DAYS: '0',
  UNSUBSCRIBE_BASE_URL: 'example.com/unsubscribe',
  SOFT_BOUNCE_LIMIT: '0',
  SOFT_BOUNCE_WINDOW_DAYS: '0',
  TOPIC_ALIASES: 'not json',
  SES_QUEUE_NAME: 'not a queue name',
  SES_DEAD_LETTER_QUEUE: 'not a queue name',
  SYNC_QUEUE_NAME: 'not a queue name',
  // Read by the CLI beside the local stack (and by the Lambdas): refused like every other sync setting.
  SYNC_QUEUE_URL: 'ratchet-sync',
  SYNC_DEAD_LETTER_QUEUE_URL: 'not a url',
};

/** Read by the runtime, but with no value `npm start` can refuse on one machine: why, per variable. */
export const NOT_REFUSABLE: Record<string, string> = {
  AWS_REGION: 'any name; the emulators accept every region, AWS refuses an unknown one itself',
  AWS_DEFAULT_REGION: 'as AWS_REGION',
  QUEUE_URL: 'the local runtime creates its own queue and ignores it',
  SES_QUEUE_URL: 'the SES feed, AWS only',
  SES_DEAD_LETTER_QUEUE_URL: 'the SES feed, AWS only',
  REPUTATION_TOPIC_ARN: 'the reputation topic, AWS only (no SNS locally)',
  ...Object.fromEntries(
    [...PROVIDERS, UNSUBSCRIBE_PROVIDER].flatMap((p) =>
      p.secretArnVariable ? [[p.secretArnVariable, 'AWS only: locally the credentials come from the environment']] : [],
    ),
  ),
};
