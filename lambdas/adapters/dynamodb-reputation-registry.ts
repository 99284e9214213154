/**
 * Every sender's stored status, read from the registry with the plain DynamoDB client (no document
 * client): what `ratchet doctor` lists, through the client it checks every table with.
 */
import { type AttributeValue, type DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import { fromItem } from '../client/attribute-values.js';
import {
  isRegistryRow,
  type RegistryRow,
  registryPartitions,
  type StoredStatus,
  storedStatusOf,
} from './reputation-keys.js';
import { REPUTATION_TABLE } from './tables.js';

export async function storedStatuses(client: DynamoDBClient, tableName: string): Promise<StoredStatus[]> {
  const out: StoredStatus[] = [];
  for (const partition of registryPartitions()) {
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk',
          ExpressionAttributeNames: { '#pk': REPUTATION_TABLE.partitionKey },
          ExpressionAttributeValues: { ':pk': { S: partition } },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const plain = fromItem(item);
        const status = isRegistryRow(plain) ? storedStatusOf(plain as unknown as RegistryRow) : undefined;
        if (status) out.push(status);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
  return out.sort((a, b) => a.sender.localeCompare(b.sender) || a.provider.localeCompare(b.provider));
}
