/**
 * A Scan read to its end, one page at a time: the caller's loop body runs on each page before the next
 * is read, so a slow consumer throttles the scan instead of the table landing in memory. Only for
 * operators and the local runtime's recovery, never a request path. The filter and key names stay with
 * the adapter that owns the table; this file knows only DynamoDB's paging.
 */
import { type DynamoDBDocumentClient, ScanCommand, type ScanCommandInput } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';

/** Yields each page's items (possibly none: a filter can empty a page while more follow). `what` names the table in the error. */
export async function* scanPages(
  client: DynamoDBDocumentClient,
  input: Omit<ScanCommandInput, 'ExclusiveStartKey'>,
  what: string,
): AsyncGenerator<Array<Record<string, unknown>>> {
  let startKey: Record<string, unknown> | undefined;
  do {
    let page: { Items?: Array<Record<string, unknown>>; LastEvaluatedKey?: Record<string, unknown> };
    try {
      page = await client.send(new ScanCommand({ ...input, ExclusiveStartKey: startKey }));
    } catch (cause) {
      throw new TransientError(`${what} scan failed`, { cause });
    }
    yield page.Items ?? [];
    startKey = page.LastEvaluatedKey;
  } while (startKey);
}
