/** A paginated Scan shared by the adapters' listing methods: each adapter still writes its own filter. */
import { ScanCommand, type DynamoDBDocumentClient, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';

export interface ScanOptions {
  /** This reader's part of a parallel scan (0-based), with `totalSegments`. */
  segment?: number;
  totalSegments?: number;
  /** Items read per request (before the filter); DynamoDB's own 1 MB page cap still applies. */
  pageSize?: number;
}

export async function* scanItems<T>(
  client: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey' | 'Segment' | 'TotalSegments' | 'Limit'>,
  options: ScanOptions,
): AsyncGenerator<T> {
  const segmented = options.totalSegments !== undefined ? { Segment: options.segment ?? 0, TotalSegments: options.totalSegments } : {};
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await client
      .send(new ScanCommand({ ...input, ...segmented, Limit: options.pageSize, ExclusiveStartKey: startKey }))
      .catch((cause: unknown) => {
        throw new TransientError(`scan of ${input.TableName} failed`, { cause });
      });
    for (const item of page.Items ?? []) yield item as T;
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
