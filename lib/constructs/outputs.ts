/**
 * The stack outputs: the same names and shapes whichever front door serves (ApiUrl ends with `/`,
 * `WebhookUrl<Provider>` is `<ApiUrl>webhooks/<provider>`).
 */
import { CfnOutput } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { formatProviderValues } from '../sync-limits.js';
import { webhookUrl } from './front-door.js';
import { pascal } from './provider-secrets.js';
import type { Ratchet } from './ratchet.js';

export function addOutputs(scope: Construct, ratchet: Ratchet): void {
  const out = (id: string, value: string, description?: string) => new CfnOutput(scope, id, { value, description });
  const { front, tables, events, ses, secrets, alarms } = ratchet;

  out('ApiUrl', `${front.baseUrl}/`, `Base URL of the webhook front door (${front.kind})`);
  for (const provider of ratchet.providers) {
    out(`WebhookUrl${pascal(provider.name)}`, webhookUrl(front, provider.name), `Webhook URL for ${provider.name}`);
  }
  out(
    'UnsubscribeBaseUrl',
    front.baseUrl,
    'Base of one-click unsubscribe links (UNSUBSCRIBE_BASE_URL): <base>/unsubscribe/<token>',
  );
  for (const [name, secret] of secrets.byProvider) {
    out(`SecretArn${pascal(name)}`, secret.secretArn, `Secrets Manager secret holding the ${name} keys (JSON array)`);
  }
  out(
    'UnsubscribeSecretArn',
    secrets.unsubscribe.secretArn,
    'Keys for one-click unsubscribe tokens (generated at deploy)',
  );
  out('InboxTableName', tables.inbox.tableName);
  out('SuppressionTableName', tables.suppressions.tableName, 'The suppression list sending code reads');
  out('QueueUrl', events.queue.queueUrl);
  out('DeadLetterQueueUrl', events.deadLetterQueue.queueUrl);
  out('SesTopicArn', ses.topic.topicArn);
  out('SesDeadLetterQueueUrl', ses.deadLetterQueue.queueUrl, 'Where SNS parks SES events it could not deliver');
  out('SesDeadLetterQueueName', ses.deadLetterQueue.queueName, 'SES_DEAD_LETTER_QUEUE for `ratchet ses redrive`');
  if (ratchet.sesQueue) {
    const { queue } = ratchet.sesQueue;
    out('SesQueueUrl', queue.queueUrl, 'The SES feed queue the SES topic delivers to');
    out('SesQueueName', queue.queueName, 'SES_QUEUE_NAME: the SES feed queue');
    out(
      'SesQueueArn',
      queue.queueArn,
      "Subscribe another account's SES topic to this queue (and add the topic to extraTopicArns)",
    );
  }
  if (ratchet.sync) {
    const { queue, deadLetterQueue, providers, limits } = ratchet.sync;
    // The CLI on AWS cannot read the stack's configuration: without this, `sync status` says sync is off.
    out(
      'SyncProviders',
      providers.join(','),
      'SYNC_PROVIDERS: the providers this stack syncs to, for the CLI (`ratchet sync status`, the fast path)',
    );
    // What the worker copies add up to, defaults included, in the form context syncRates/syncConcurrency take.
    out(
      'SyncRates',
      formatProviderValues(limits.stack, 'rate', providers),
      'Calls a second to each provider, all sync worker copies together (context syncRates; docs/sync.md)',
    );
    out(
      'SyncConcurrency',
      formatProviderValues(limits.stack, 'concurrency', providers),
      'Calls in flight to each provider, all sync worker copies together (context syncConcurrency)',
    );
    out(
      'SyncRetrySeconds',
      String(ratchet.sync.retrySeconds),
      'Seconds the sync worker retries a change after its first counted failure before the dead letters (context syncRetrySeconds)',
    );
    out('SyncQueueUrl', queue.queueUrl, 'SYNC_QUEUE_URL: the sync queue (the CLI finds it by name when unset)');
    out(
      'SyncDeadLetterQueueUrl',
      deadLetterQueue.queueUrl,
      'SYNC_DEAD_LETTER_QUEUE_URL: sync changes that failed, for `ratchet sync retry`',
    );
  }
  out(
    'AlarmTopicArn',
    alarms.topic.topicArn,
    'Subscribe here to hear about dead letters, a stuck consumer, 5xx, 429s, rejections and crashes',
  );
  if (ses.configurationSet) {
    out(
      'ConfigurationSetName',
      ses.configurationSet.configurationSetName,
      'Send with this SES configuration set to have its events reach Ratchet',
    );
  }
}
