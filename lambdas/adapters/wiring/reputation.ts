/**
 * The reputation evaluator's wiring: the table's reader and state writer, the SNS notifier when a topic
 * is configured, the thresholds from the environment.
 */
import { SNSClient } from '@aws-sdk/client-sns';
import type { EvaluatorDeps } from '../../core/reputation/evaluate.js';
import { thresholdsFromSettings } from '../../core/reputation/settings.js';
import { DynamoReputationReader } from '../dynamodb-reputation.js';
import { DynamoReputationStates } from '../dynamodb-reputation-writer.js';
import { NAME_DEFAULTS, RUNTIME_VARIABLE as V } from '../environment.js';
import { powertoolsLog } from '../observability.js';
import { reputationGauges, SnsReputationNotifier } from '../sns-reputation.js';
import type { Clients, RuntimeConfig } from './config.js';

export const REPUTATION_SERVICE = 'ratchet-reputation';

export function reputationTableName(config: RuntimeConfig): string {
  return config.reputationTable ?? NAME_DEFAULTS[V.reputationTable];
}

export function buildReputationReader(config: RuntimeConfig, clients: Pick<Clients, 'doc'>): DynamoReputationReader {
  return new DynamoReputationReader(clients.doc, reputationTableName(config), thresholdsFromSettings(config.settings));
}

export function buildReputationEvaluator(
  config: RuntimeConfig,
  clients: Pick<Clients, 'doc'>,
  overrides: Partial<EvaluatorDeps> & { sns?: SNSClient } = {},
): EvaluatorDeps {
  const { sns, ...rest } = overrides;
  const reader = buildReputationReader(config, clients);
  const states = new DynamoReputationStates(clients.doc, reputationTableName(config));
  const topicArn = config.settings[V.reputationTopicArn];
  const notifier = topicArn
    ? new SnsReputationNotifier(sns ?? new SNSClient({ region: config.region }), topicArn)
    : undefined;
  return {
    senders: (window, nowMs) => reader.listSenders(window, { nowMs }),
    save: (key, previous, next, r, nowMs) => states.save(key, previous, next, r, nowMs),
    ...(notifier ? { notify: (change) => notifier.notify(change) } : {}),
    publish: reputationGauges(REPUTATION_SERVICE, 'Ratchet'),
    thresholds: thresholdsFromSettings(config.settings),
    log: powertoolsLog(REPUTATION_SERVICE, config.settings[V.logLevel]),
    now: Date.now,
    ...rest,
  };
}
