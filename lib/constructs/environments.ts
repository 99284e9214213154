/**
 * The environment each Lambda gets, in one place: names are the runtime's public contract (docs/configuration.md).
 * Only what a role reads is passed to it.
 */
import { NUMBER_VARIABLES, RUNTIME_VARIABLE as V } from '../../lambdas/adapters/environment.js';
import { assertInboxOutlivesWindows } from '../../lambdas/core/inbox-retention.js';
import { SES_TOPIC_ARNS_VARIABLE } from '../../lambdas/core/providers/ses/index.js';
import { SNS_SETTING } from '../../lambdas/core/providers/ses/sns/settings.js';
import { SOFT_BOUNCE_VARIABLES } from '../../lambdas/core/suppression/policy.js';
import { TOPIC_ALIASES_VARIABLE } from '../../lambdas/core/topics.js';
import { TOPIC_LABELS_VARIABLE } from '../../lambdas/core/unsubscribe/settings.js';
import type { RatchetConfig } from '../config.js';
import { ContextError } from '../context-values.js';
import { METRIC_NAMESPACE, SERVICES, type Service } from './metric-catalog.js';

const SECRETS_CACHE_SECONDS = String(NUMBER_VARIABLES[V.secretsCacheSeconds].default);
const NODE_OPTIONS = '--enable-source-maps';

/** Powertools (service, metrics namespace, log level) and source maps. */
export function commonEnvironment(service: Service, config: Pick<RatchetConfig, 'logLevel'>): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: SERVICES[service],
    POWERTOOLS_METRICS_NAMESPACE: METRIC_NAMESPACE,
    [V.logLevel]: config.logLevel,
    NODE_OPTIONS,
  };
}

export interface EdgeEnvironmentInputs {
  readonly inboxTable: string;
  readonly queueUrl: string;
  readonly topicArns: readonly string[];
  /** `<PROVIDER>_SECRET_ARN` and `UNSUBSCRIBE_SECRET_ARN`. */
  readonly secretArns: Record<string, string>;
}

export function edgeEnvironment(config: RatchetConfig, inputs: EdgeEnvironmentInputs): Record<string, string> {
  const env: Record<string, string> = {
    [V.inboxTable]: inputs.inboxTable,
    [V.queueUrl]: inputs.queueUrl,
    [SES_TOPIC_ARNS_VARIABLE]: inputs.topicArns.join(','),
    [V.inboxTtlDays]: String(config.inboxTtlDays),
    [V.secretsCacheSeconds]: SECRETS_CACHE_SECONDS,
    ...inputs.secretArns,
    ...commonEnvironment('edge', config),
  };
  Object.assign(env, config.providerSettings);
  if (config.snsMaxAgeSeconds !== undefined) env[SNS_SETTING.maxAgeSeconds] = String(config.snsMaxAgeSeconds);
  if (config.topicAliases !== undefined) env[TOPIC_ALIASES_VARIABLE] = config.topicAliases;
  if (config.topicLabels !== undefined) env[TOPIC_LABELS_VARIABLE] = config.topicLabels;
  // The same check `npm start` makes: a replay inside any signature window must still find its row.
  try {
    assertInboxOutlivesWindows(env, config.inboxTtlDays);
  } catch (error) {
    throw new ContextError((error as Error).message);
  }
  return env;
}

export interface ConsumerEnvironmentInputs {
  readonly inboxTable: string;
  readonly suppressionTable: string;
}

export function consumerEnvironment(config: RatchetConfig, inputs: ConsumerEnvironmentInputs): Record<string, string> {
  const env: Record<string, string> = {
    [V.inboxTable]: inputs.inboxTable,
    [V.suppressionTable]: inputs.suppressionTable,
    ...commonEnvironment('consumer', config),
  };
  if (config.softBounceLimit !== undefined) env[SOFT_BOUNCE_VARIABLES.limit] = String(config.softBounceLimit);
  if (config.softBounceWindowDays !== undefined)
    env[SOFT_BOUNCE_VARIABLES.windowDays] = String(config.softBounceWindowDays);
  if (config.topicAliases !== undefined) env[TOPIC_ALIASES_VARIABLE] = config.topicAliases;
  return env;
}
