/**
 * The shipped stack: one `Ratchet` construct (lib/constructs/ratchet.ts) configured from CDK context
 * (lib/config.ts), plus its outputs. The construct's id is `Default` and its seams are transparent, so
 * every resource keeps the logical id it had when this file built them all itself.
 */
import type { StackProps } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as ses from 'aws-cdk-lib/aws-ses';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { readConfig, type RatchetConfig } from './config.js';
import type { RatchetAlarms } from './constructs/alarms.js';
import type { FrontDoor } from './constructs/front-door.js';
import type { HandlerFunction } from './constructs/handler-function.js';
import { addOutputs } from './constructs/outputs.js';
import type { ProviderRoute } from './constructs/provider-secrets.js';
import { Ratchet } from './constructs/ratchet.js';
import { StableIdStack } from './constructs/stable-ids.js';
import { WebhookApi } from './constructs/webhook-api.js';
import { DEFAULT_RESOURCE_PREFIX, resourceNames } from './definitions.js';

export { pascal, type ProviderRoute } from './constructs/provider-secrets.js';
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

export class RatchetStack extends StableIdStack {
  readonly ratchet: Ratchet;
  readonly config: RatchetConfig;
  readonly inboxTable: dynamodb.Table;
  readonly suppressionTable: dynamodb.ITable;
  readonly queue: sqs.Queue;
  readonly deadLetterQueue: sqs.Queue;
  readonly topic: sns.Topic;
  readonly sesDeadLetterQueue: sqs.Queue;
  readonly configurationSet: ses.ConfigurationSet | undefined;
  readonly secrets: ReadonlyMap<string, secretsmanager.ISecret>;
  readonly front: FrontDoor;
  /** The API Gateway front door, unless context `front=function-url`. */
  readonly webhookApi: WebhookApi | undefined;
  readonly edge: HandlerFunction;
  readonly consumer: HandlerFunction;
  readonly alarms: RatchetAlarms;
  readonly sesSubscription: sns.Subscription;

  constructor(scope: Construct, id: string, props: RatchetStackProps = {}) {
    super(scope, id, props);
    const r = (this.ratchet = new Ratchet(this, 'Default', {
      config: readConfig(this.node),
      providers: props.providers,
      projectRoot: props.projectRoot,
    }));
    addOutputs(r, r);
    this.config = r.config;
    this.inboxTable = r.tables.inbox;
    this.suppressionTable = r.tables.suppressions;
    this.queue = r.events.queue;
    this.deadLetterQueue = r.events.deadLetterQueue;
    this.topic = r.ses.topic;
    this.sesDeadLetterQueue = r.ses.deadLetterQueue;
    this.configurationSet = r.ses.configurationSet;
    this.secrets = r.secrets.byProvider;
    this.front = r.front;
    this.webhookApi = r.front instanceof WebhookApi ? r.front : undefined;
    this.edge = r.edge;
    this.consumer = r.consumer;
    this.alarms = r.alarms;
    this.sesSubscription = r.sesSubscription;
  }
}
