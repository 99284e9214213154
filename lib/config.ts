/**
 * Deployment settings, read from CDK context (`cdk.json`, or `cdk deploy -c key=value`) into the
 * `Ratchet` construct's props (lib/constructs/ratchet-props.ts). A value that does not parse fails the
 * synth here with the key's name; the construct applies the defaults and refuses a combination that
 * would lose events, with the same kind of message.
 */

import type { Node } from 'constructs';
import { INBOX_TTL_CONTEXT } from '../lambdas/core/inbox-ttl.js';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import {
  FRONT_DOOR_KINDS,
  LOG_LEVELS,
  type RatchetProps,
  SES_FEED_KINDS,
  SNS_MAX_AGE_CONTEXT,
} from './constructs/ratchet-props.js';
import { boolean, type Getter, isUnset, list, oneOf, positiveInteger, positiveNumber } from './context-values.js';
import { syncPropsFromContext } from './sync-config.js';

export {
  assertSnsMaxAgeBelowInboxTtl,
  DEFAULT_LOG_RETENTION_DAYS,
  DEFAULT_REJECTED_REQUESTS_ALARM_THRESHOLD,
  type FrontDoorKind,
  LOG_LEVELS,
  type LogLevel,
  type RatchetConfig,
  type RatchetProps,
  SES_FEED_KINDS,
  type SesFeedKind,
  SNS_MAX_AGE_CONTEXT,
} from './constructs/ratchet-props.js';

/**
 * CDK context -> the construct's props, key for key. Each value is parsed from what context can hold
 * (a string on the command line; a number, boolean or array in cdk.json); the construct applies the
 * defaults and checks the rules (ranges, combinations), with the same messages.
 */
export function readConfig(node: Node): RatchetProps {
  const get = (key: string): unknown => node.tryGetContext(key);
  const text = (key: string): string | undefined => {
    const value = get(key);
    return isUnset(value) ? undefined : typeof value === 'string' ? value.trim() : (value as string);
  };
  return {
    resourcePrefix: text('resourcePrefix'),
    extraTopicArns: list(get, 'extraTopicArns'),
    inboxTtlDays: positiveInteger(get, INBOX_TTL_CONTEXT),
    inboxPointInTimeRecovery: boolean(get, 'inboxPointInTimeRecovery'),
    providerSettings: providerSettingsFromContext(get),
    front: oneOf(get, 'front', FRONT_DOOR_KINDS),
    sesFeed: oneOf(get, 'sesFeed', SES_FEED_KINDS),
    reuseRetained: boolean(get, 'reuseRetained'),
    throttleRateLimit: positiveNumber(get, 'throttleRateLimit'),
    throttleBurstLimit: positiveInteger(get, 'throttleBurstLimit'),
    snsMaxReceivesPerSecond: positiveInteger(get, 'snsMaxReceivesPerSecond'),
    snsMaxAgeSeconds: positiveInteger(get, SNS_MAX_AGE_CONTEXT),
    sesRouteRateLimit: positiveNumber(get, 'sesRouteRateLimit'),
    sesRouteBurstLimit: positiveInteger(get, 'sesRouteBurstLimit'),
    edgeReservedConcurrency: positiveInteger(get, 'edgeReservedConcurrency'),
    concurrencyBudget: positiveInteger(get, 'concurrencyBudget'),
    createConfigurationSet: boolean(get, 'createConfigurationSet'),
    softBounceLimit: positiveInteger(get, 'softBounceLimit'),
    softBounceWindowDays: positiveInteger(get, 'softBounceWindowDays'),
    logRetentionDays: positiveInteger(get, 'logRetentionDays'),
    logLevel: oneOf(get, 'logLevel', LOG_LEVELS),
    alarmEmail: text('alarmEmail'),
    rejectedRequestsAlarmThreshold: positiveInteger(get, 'rejectedRequestsAlarmThreshold'),
    topicAliases: list(get, 'topicAliases'),
    topicLabels: list(get, 'topicLabels'),
    ...syncPropsFromContext(node),
  };
}

/**
 * Every provider setting declared with a context key, read as a comma-separated string or a list of
 * strings (blanks dropped) and joined with commas; an empty one is left out. No provider is named here.
 */
export function providerSettingsFromContext(
  get: Getter,
  providers: readonly ProviderDefinition[] = PROVIDERS,
): Record<string, string> {
  const settings: Record<string, string> = {};
  for (const { contextKey, variable } of providers.flatMap((provider) => provider.settings)) {
    const items = contextKey === undefined ? undefined : list(get, contextKey);
    if (items !== undefined && items.length > 0) settings[variable] = items.join(',');
  }
  return settings;
}
