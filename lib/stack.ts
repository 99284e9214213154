/**
 * The shipped stack: one `Ratchet` construct (lib/constructs/ratchet.ts) configured from CDK context
 * (lib/config.ts maps it to the construct's props), plus its outputs. Reach the parts through
 * `stack.ratchet`.
 */
import { Stack, type StackProps } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { readConfig } from './config.js';
import { assertConcurrencyBudget } from './constructs/concurrency-budget.js';
import { addOutputs } from './constructs/outputs.js';
import type { ProviderRoute } from './constructs/provider-secrets.js';
import { Ratchet } from './constructs/ratchet.js';
import { DEFAULT_RESOURCE_PREFIX, resourceNames } from './definitions.js';

export { type ProviderRoute, pascal } from './constructs/provider-secrets.js';
export { SES_SUBSCRIPTION_RETRY } from './constructs/ses-feed.js';

export interface RatchetStackProps extends StackProps {
  /** Defaults to the registry; tests may pass their own. */
  readonly providers?: readonly ProviderRoute[];
  /** Defaults to the project root. */
  readonly projectRoot?: string;
}

/** Where a provider's secret lives in Secrets Manager. */
export const secretNameFor = (provider: string, prefix: string = DEFAULT_RESOURCE_PREFIX): string =>
  resourceNames(prefix).secret(provider);

export class RatchetStack extends Stack {
  readonly ratchet: Ratchet;

  constructor(scope: Construct, id: string, props: RatchetStackProps = {}) {
    super(scope, id, props);
    // `Default` is left out of logical ids, so the stack's resources are named after their seams only.
    this.ratchet = new Ratchet(this, 'Default', {
      ...readConfig(this.node, { rejectUnknownKeys: true }),
      providers: props.providers,
      projectRoot: props.projectRoot,
    });
    addOutputs(this, this.ratchet);
    // Again over the whole stack: a function added beside the construct counts toward the budget too.
    assertConcurrencyBudget(this, this.ratchet.config.concurrencyBudget);
  }
}
