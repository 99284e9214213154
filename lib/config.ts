/**
 * Deployment settings, read from CDK context (`cdk.json`, or `cdk deploy -c key=value`) into the
 * `Ratchet` construct's props (lib/constructs/ratchet-props.ts). A value that does not parse fails the
 * synth here with the key's name; the construct applies the defaults and refuses a combination that
 * would lose events, with the same kind of message.
 */

import type { Node } from 'constructs';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import type { RatchetProps } from './constructs/ratchet-props.js';
import {
  CONTEXT_KEYS,
  type ContextKeyDeclaration,
  type ContextProps,
  contextKeyRows,
  providerContextSettings,
  unknownContextKeys,
} from './context-keys.js';
import { ContextError, type Getter, list } from './context-values.js';

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
export { ContextError } from './context-values.js';

export interface ReadConfigOptions {
  /**
   * Refuse a context key that looks like a Ratchet setting but is not one (a misspelling would
   * otherwise deploy the default). The shipped stack sets it; an app of your own with context keys of
   * its own leaves it off.
   * @default false
   */
  readonly rejectUnknownKeys?: boolean;
}

/**
 * CDK context -> the construct's props, key for key, through the declarations in lib/context-keys.ts
 * (the only keys read). Each value is parsed from what context can hold (a string on the command
 * line; a number, boolean or array in cdk.json); the construct applies the defaults and checks the
 * rules (ranges, combinations), with the same messages. Throws a ContextError naming the key.
 *
 *   new Ratchet(stack, 'Ratchet', readConfig(stack.node));
 */
export function readConfig(node: Node, options: ReadConfigOptions = {}): RatchetProps {
  const get = (key: string): unknown => node.tryGetContext(key);
  if (options.rejectUnknownKeys) {
    const known = contextKeyRows().map((row) => row.key);
    const problems = unknownContextKeys(Object.keys(node.getAllContext() as object), known);
    if (problems.length > 0) throw new ContextError(problems.join('\n'));
  }
  const props: Record<string, unknown> = {};
  for (const [key, declaration] of Object.entries(CONTEXT_KEYS) as Array<[string, ContextKeyDeclaration<unknown>]>) {
    const value = declaration.read(get, key);
    if (value !== undefined) props[key] = value;
  }
  const providerSettings = providerSettingsFromContext(get);
  return { ...(props as ContextProps), ...(Object.keys(providerSettings).length > 0 ? { providerSettings } : {}) };
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
  for (const { contextKey, variable } of providerContextSettings(providers)) {
    const items = list(get, contextKey!);
    if (items !== undefined && items.length > 0) settings[variable] = items.join(',');
  }
  return settings;
}
