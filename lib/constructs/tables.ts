/**
 * The two tables, and the exact DynamoDB actions each role may take on them.
 *
 * Inbox rows are dedupe records with the raw payload that expire after `inboxTtlDays` anyway: deleting
 * the stack deletes them, and point-in-time recovery is optional (context `inboxPointInTimeRecovery`).
 * Losing them only means a provider redelivery is admitted again, which the one-way ratchet absorbs.
 * The suppression list is the product: PITR always, deletion protection, and it outlives the stack.
 */
import { RemovalPolicy } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Construct } from 'constructs';
import { INBOX_TABLE, SUPPRESSION_TABLE } from '../definitions.js';

export interface RatchetTablesProps {
  readonly inboxTableName: string;
  readonly suppressionTableName: string;
  readonly inboxPointInTimeRecovery: boolean;
  /**
   * Use the suppression table a destroyed stack retained, by name, instead of creating it (context
   * `reuseRetained`). It keeps its PITR and deletion protection, which `ratchet doctor` checks by name.
   */
  readonly reuseSuppressionTable?: boolean;
}

export class RatchetTables extends Construct {
  readonly inbox: dynamodb.Table;
  readonly suppressions: dynamodb.ITable;

  constructor(scope: Construct, id: string, props: RatchetTablesProps) {
    super(scope, id);
    this.inbox = new dynamodb.Table(this, 'InboxTable', {
      tableName: props.inboxTableName,
      partitionKey: { name: INBOX_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
      billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
      timeToLiveAttribute: INBOX_TABLE.ttlAttribute,
      // Every new row is one first admission, once in the stream: the reputation counter consumes it
      // (constructs/reputation-counter.ts). Writing to a stream is free; Lambda's reads of it are too.
      stream: dynamodb.StreamViewType.NEW_IMAGE,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: props.inboxPointInTimeRecovery },
      removalPolicy: RemovalPolicy.DESTROY,
    });
    this.suppressions = props.reuseSuppressionTable
      ? dynamodb.Table.fromTableName(this, 'SuppressionTable', props.suppressionTableName)
      : new dynamodb.Table(this, 'SuppressionTable', {
          tableName: props.suppressionTableName,
          partitionKey: { name: SUPPRESSION_TABLE.partitionKey, type: dynamodb.AttributeType.STRING },
          billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
          pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
          deletionProtection: true,
          removalPolicy: RemovalPolicy.RETAIN,
        });
  }

  /** The edge: conditional put (admission, nonce claims, the control ledger) and a duplicate's status read. Never an update. */
  grantAdmit(grantee: iam.IGrantable): void {
    allow(grantee, ['dynamodb:PutItem', 'dynamodb:GetItem'], [this.inbox.tableArn]);
  }

  /** The consumer's guarded read -> apply -> conditional put on the suppression list. */
  grantApply(grantee: iam.IGrantable): void {
    allow(grantee, ['dynamodb:GetItem', 'dynamodb:PutItem'], [this.suppressions.tableArn]);
  }
}

/** Exact actions on exact resources: no `dynamodb:*`, no index wildcards. */
export function allow(grantee: iam.IGrantable, actions: string[], resources: string[]): void {
  grantee.grantPrincipal.addToPrincipalPolicy(new iam.PolicyStatement({ actions, resources }));
}
