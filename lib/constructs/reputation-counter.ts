/**
 * The reputation counter: the inbox table's stream (NEW_IMAGE) consumed by one function through an
 * event source mapping (docs/reputation.md, "Each event counts once"). Every new inbox row is one first
 * admission, once in the stream; the function counts each batch into cells of its stream shard.
 *
 * The mapping (REPUTATION.counting): large batches gathered over a window, one batch at a time per
 * shard, bisected on error, retried a bounded number of times and never past a maximum age, then sent
 * to an on-failure queue, so a poison record never blocks its shard; a tumbling window only so that
 * Lambda names the shard in the event. Reserved concurrency bounds it (lib/concurrency.ts).
 *
 * Role, least privilege: read the inbox table's stream (its ARN only; ListStreams takes no resource),
 * GetItem and UpdateItem on the reputation table, SendMessage to its on-failure queue; nothing else.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import { CfnEventSourceMapping, type CfnFunction } from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { REPUTATION } from '../definitions.js';
import { HandlerFunction } from './handler-function.js';
import { secureQueue } from './secure-queue.js';
import { allow } from './tables.js';

const C = REPUTATION.counting;

export interface ReputationCounterProps {
  readonly inbox: dynamodb.Table;
  readonly reputationTable: dynamodb.ITable;
  readonly failureQueueName: string;
  readonly projectRoot: string;
  readonly environment: Record<string, string>;
  readonly logRetention: logs.RetentionDays;
}

export const REPUTATION_COUNTER_NAG_ACKNOWLEDGEMENTS = {
  role: [
    [
      'AwsSolutions-IAM5[Resource::*]',
      'dynamodb:ListStreams takes no resource ("*" is the only one the Service Authorization Reference allows); it lists stream ARNs, never data. Every other action is on the inbox stream, the reputation table or the on-failure queue.',
    ],
  ],
  function: [
    ['AwsSolutions-L1', 'Pinned to nodejs22.x, the runtime the handlers are built and tested for.'],
    ['Serverless-LambdaLatestVersion', 'Pinned to nodejs22.x, the runtime the handlers are built and tested for.'],
    ['Serverless-LambdaTracing', 'X-Ray adds cost per request; the log line per batch covers what an operator needs.'],
    [
      'Serverless-LambdaDLQ',
      'Invoked synchronously by its stream event source mapping, whose on-failure destination is the queue for discarded batches; an asynchronous DLQ would never be used.',
    ],
  ],
  failures: [
    [
      'AwsSolutions-SQS3',
      "This queue is itself where discarded batches go: the on-failure destination of the inbox stream's mapping.",
    ],
    [
      'Serverless-SQSRedrivePolicy',
      'The on-failure queue holds the metadata of discarded batches for an operator (shard, sequence numbers); it needs no dead-letter queue of its own.',
    ],
  ],
} as const;

export class ReputationCounter extends Construct {
  readonly handler: HandlerFunction;
  readonly mapping: CfnEventSourceMapping;
  /** Where the mapping sends a batch it gave up on (its shard and sequence numbers): alarmed at 1. */
  readonly failures: sqs.Queue;

  constructor(scope: Construct, id: string, props: ReputationCounterProps) {
    super(scope, id);
    const streamArn = props.inbox.tableStreamArn;
    if (!streamArn) throw new Error('the inbox table needs a stream (NEW_IMAGE) for reputation counting');
    this.failures = secureQueue(this, 'Failures', {
      queueName: props.failureQueueName,
      retentionPeriod: Duration.days(14),
    });
    this.handler = new HandlerFunction(this, 'Function', {
      projectRoot: props.projectRoot,
      entry: 'lambdas/reputation-counter.ts',
      description: "Ratchet reputation counter: counts the inbox stream's new rows per sender and hour, exactly once",
      timeoutSeconds: C.timeoutSeconds,
      memoryMb: C.memoryMb,
      environment: props.environment,
      logRetention: props.logRetention,
      // One copy per stream shard at most (parallelization 1); this bounds them for the concurrency budget.
      reservedConcurrency: C.reservedConcurrency,
    });
    const role = this.handler.role;
    allow(role, ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], [streamArn]);
    allow(role, ['dynamodb:ListStreams'], ['*']);
    allow(role, ['dynamodb:GetItem', 'dynamodb:UpdateItem'], [props.reputationTable.tableArn]);
    allow(role, ['sqs:SendMessage'], [this.failures.queueArn]);

    this.mapping = new CfnEventSourceMapping(this, 'InboxStream', {
      functionName: this.handler.function.functionName,
      eventSourceArn: streamArn,
      // From the oldest record the stream keeps (24 h): nothing admitted while the mapping was created is missed.
      startingPosition: 'TRIM_HORIZON',
      batchSize: C.batchSize,
      maximumBatchingWindowInSeconds: C.maxBatchingWindowSeconds,
      parallelizationFactor: C.parallelizationFactor,
      tumblingWindowInSeconds: C.tumblingWindowSeconds,
      bisectBatchOnFunctionError: true,
      maximumRetryAttempts: C.retryAttempts,
      maximumRecordAgeInSeconds: C.maxRecordAgeSeconds,
      destinationConfig: { onFailure: { destination: this.failures.queueArn } },
      // New rows only (a put over an expired row is a MODIFY): TTL deletions never invoke the function.
      filterCriteria: { filters: [{ pattern: JSON.stringify({ eventName: ['INSERT', 'MODIFY'] }) }] },
    });
    // The role's grants must exist before Lambda validates the mapping against them.
    this.mapping.node.addDependency(role);

    const ack = (target: Construct, acks: ReadonlyArray<readonly [string, string]>) =>
      Validations.of(target).acknowledge(...acks.map(([rule, reason]) => ({ id: rule, reason })));
    ack(role, REPUTATION_COUNTER_NAG_ACKNOWLEDGEMENTS.role);
    ack(this.handler.function.node.defaultChild as CfnFunction, REPUTATION_COUNTER_NAG_ACKNOWLEDGEMENTS.function);
    ack(this.failures, REPUTATION_COUNTER_NAG_ACKNOWLEDGEMENTS.failures);
  }
}
