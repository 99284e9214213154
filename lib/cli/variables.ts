/**
 * The variables only the operator tools read (the CLI, `npm start`'s data directory, the unsubscribe
 * link base), described for docs/configuration.md beside the runtime's own (lambdas/adapters/environment.ts).
 * test/unit/docs/env-table.test.ts checks that each one is still read somewhere under lib/ or lambdas/.
 */
import type { VariableDoc } from '../../lambdas/adapters/environment.js';

export const OPERATOR_VARIABLE_DOCS: Readonly<Record<string, VariableDoc>> = {
  RATCHET_DATA_DIR: {
    applies: 'local',
    default: '`.data`',
    expected: 'a directory',
    describe:
      "The local stack's data: tables, demo credentials, `local.json`, the lock; the CLI finds the running stack through it",
  },
  RATCHET_TARGET: {
    applies: 'both',
    expected: '`aws` or `local`',
    describe:
      '`aws`: the `ratchet` CLI ignores a running local stack and uses AWS; `local`: it requires the local stack. Anything else exits 2',
  },
  DLQ_URL: {
    applies: 'aws',
    expected: 'an SQS queue URL',
    describe: 'The events DLQ (stack output `DeadLetterQueueUrl`), for `ratchet dlq` and `doctor` against AWS',
  },
  SES_TOPIC_ARN: {
    applies: 'aws',
    default: 'the first of `SNS_TOPIC_ARNS`',
    expected: 'an SNS topic ARN',
    describe: 'The SES topic (stack output `SesTopicArn`) whose subscription `doctor` checks',
  },
  ALARM_TOPIC_ARN: {
    applies: 'aws',
    expected: 'an SNS topic ARN',
    describe: 'The alarm topic (stack output `AlarmTopicArn`) whose subscribers `doctor` checks',
  },
  UNSUBSCRIBE_BASE_URL: {
    applies: 'both',
    default: 'locally `http://localhost:$PORT`',
    expected: 'an http(s) URL',
    describe:
      'Where unsubscribe links point (stack output `UnsubscribeBaseUrl` on AWS); read by `npm start`, `ratchet unsubscribe-link` and `unsubscribeUrl` in `@ratchet-email/ratchet/client`',
  },
};
