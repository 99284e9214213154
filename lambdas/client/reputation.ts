/**
 * A sender's reputation as the evaluator last stored it: one Query on the reputation table's registry
 * (the rows of one sender, one per provider), cached for a minute, so the brake in `filterSendable`
 * costs one read a minute per sender, never one per address.
 */
import { type AttributeValue, DynamoDBClient, QueryCommand } from '@aws-sdk/client-dynamodb';
import {
  isRegistryRow,
  type RegistryRow,
  registryKey,
  registryPrefix,
  storedStatusOf,
} from '../adapters/reputation-keys.js';
import { REPUTATION_TABLE } from '../adapters/tables.js';
import type { ReputationState, ReputationWindow } from '../core/reputation/state.js';
import { fromItem } from './attribute-values.js';

export interface SenderStatus {
  /** `ok` for a sender never judged (fewer events than any threshold needs, or none counted yet). */
  state: ReputationState;
  /** Hard bounces / attempts over `window`, a fraction (0.05 is 5 %). */
  bounceRate: number;
  complaintRate: number;
  attempts: number;
  window: ReputationWindow;
  /** The provider whose figures these are: with several, the worst (breach over warn over ok, then the higher bounce rate). */
  provider?: string;
}

export interface ReputationClientOptions {
  /** Default: `REPUTATION_TABLE`, else `ratchet-reputation`. */
  tableName?: string;
  region?: string;
  endpoint?: string;
  client?: DynamoDBClient;
  /** How long a status is reused. Default 60 (the evaluator runs every 5 minutes). */
  cacheSeconds?: number;
  now?: () => number;
}

export interface ReputationClient {
  senderStatus(sender: string): Promise<SenderStatus>;
}

const RANK: Readonly<Record<ReputationState, number>> = { ok: 0, warn: 1, breach: 2 };

export function createReputationClient(
  options: ReputationClientOptions = {},
  env: Readonly<Record<string, string | undefined>> = process.env,
): ReputationClient {
  const endpoint = options.endpoint ?? (env['DYNAMODB_ENDPOINT'] || undefined);
  const client =
    options.client ??
    new DynamoDBClient({
      region: options.region ?? env['AWS_REGION'] ?? 'us-east-1',
      ...(endpoint ? { endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } } : {}),
    });
  const tableName = options.tableName ?? (env['REPUTATION_TABLE'] || REPUTATION_TABLE.defaultName);
  const ttlMs = (options.cacheSeconds ?? 60) * 1000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { at: number; status: Promise<SenderStatus> }>();

  const read = async (sender: string): Promise<SenderStatus> => {
    const rows: RegistryRow[] = [];
    let startKey: Record<string, AttributeValue> | undefined;
    do {
      const page = await client.send(
        new QueryCommand({
          TableName: tableName,
          KeyConditionExpression: '#pk = :pk AND begins_with(#sk, :prefix)',
          ExpressionAttributeNames: { '#pk': REPUTATION_TABLE.partitionKey, '#sk': REPUTATION_TABLE.sortKey },
          ExpressionAttributeValues: { ':pk': { S: registryKey(sender) }, ':prefix': { S: registryPrefix(sender) } },
          ExclusiveStartKey: startKey,
        }),
      );
      for (const item of page.Items ?? []) {
        const plain = fromItem(item);
        if (isRegistryRow(plain) && plain['sender'] === sender) rows.push(plain as unknown as RegistryRow);
      }
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    const judged = rows.flatMap((row) => storedStatusOf(row) ?? []);
    judged.sort((a, b) => RANK[b.state] - RANK[a.state] || b.bounceRate - a.bounceRate);
    const worst = judged[0];
    if (!worst) return { state: 'ok', bounceRate: 0, complaintRate: 0, attempts: 0, window: '24h' };
    const { state, bounceRate, complaintRate, attempts, window, provider } = worst;
    return { state, bounceRate, complaintRate, attempts, window, provider };
  };

  return {
    senderStatus(sender) {
      if (typeof sender !== 'string' || sender.trim() === '') throw new TypeError('sender must be a non-empty string');
      const key = sender.includes(':') ? sender.trim() : sender.trim().toLowerCase();
      const hit = cache.get(key);
      if (hit && now() - hit.at < ttlMs) return hit.status;
      const status = read(key);
      cache.set(key, { at: now(), status });
      // A failed read is not cached: the next call asks again.
      status.catch(() => cache.delete(key));
      return status;
    },
  };
}
