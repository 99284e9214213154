/**
 * The sweeper's sparse `sync-due` index on the suppression table. On a table the stack creates, CDK adds
 * it (and DynamoDB backfills it from the records already there). On a retained table imported by name
 * (`reuseRetained`), CDK cannot: the table keeps the indexes the stack that created it defined, and one
 * created before sync was on has none, so the sweeper would wait for it forever (it asks again every
 * minute, and never scans). Synth then warns, with the one command that adds it.
 */
import { Annotations } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { SYNC_ATTRIBUTE, SYNC_INDEX } from '../../lambdas/adapters/suppression-sync-fields.js';

const KEY_TYPES = { [SYNC_INDEX.partitionKey]: 'S', [SYNC_INDEX.sortKey]: 'N' } as const;

export function addSyncIndex(scope: Construct, table: dynamodb.ITable): void {
  if (table instanceof dynamodb.Table) {
    table.addGlobalSecondaryIndex({
      indexName: SYNC_INDEX.name,
      partitionKey: { name: SYNC_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: SYNC_INDEX.sortKey, type: dynamodb.AttributeType.NUMBER },
      projectionType: dynamodb.ProjectionType.INCLUDE,
      nonKeyAttributes: [SYNC_ATTRIBUTE.map, SYNC_ATTRIBUTE.change],
    });
    return;
  }
  Annotations.of(scope).addWarningV2(
    'ratchet:syncIndexOnRetainedTable',
    `sync on a retained table (reuseRetained): CDK cannot add the ${SYNC_INDEX.name} index to ${table.tableName}. ` +
      `If that table was created without sync, add it once (DynamoDB then backfills it): ${syncIndexCommand(table.tableName)}`,
  );
}

/** The AWS CLI command that adds the index CDK would have added (on-demand table: no throughput to give). */
export function syncIndexCommand(tableName: string): string {
  const index = {
    Create: {
      IndexName: SYNC_INDEX.name,
      KeySchema: [
        { AttributeName: SYNC_INDEX.partitionKey, KeyType: 'HASH' },
        { AttributeName: SYNC_INDEX.sortKey, KeyType: 'RANGE' },
      ],
      Projection: { ProjectionType: 'INCLUDE', NonKeyAttributes: [SYNC_ATTRIBUTE.map, SYNC_ATTRIBUTE.change] },
    },
  };
  const attributes = Object.entries(KEY_TYPES).map(([name, type]) => `AttributeName=${name},AttributeType=${type}`);
  return `aws dynamodb update-table --table-name ${tableName} --attribute-definitions ${attributes.join(' ')} --global-secondary-index-updates '${JSON.stringify([index])}'`;
}
