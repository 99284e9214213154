/**
 * The reputation table's writing side (layout: dynamodb-reputation.ts): the edge's counter increments
 * and the evaluator's stored states.
 *
 * Increments are `ADD`s on one shard chosen at random per write: one write per (provider, sender, hour)
 * of a request or an SES feed batch, never one per event where a batch holds several. A sender's
 * registry row is refreshed the first time this process counts it in an hour, so listing senders reads
 * the registry and never scans counters.
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { ReputationCounter } from '../core/pipeline/ports.js';
import { HOUR_MS, type Rates, type ReputationState, type SenderTally } from '../core/reputation/index.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { counterKey, hourKey, registryKey, registrySortKey } from './reputation-keys.js';
import { REPUTATION_TABLE } from './tables.js';

const T = REPUTATION_TABLE;
const DAY_S = 86_400;
/** Registrations remembered per process before the memory is cleared (then re-sent once, harmlessly). */
const REMEMBERED = 10_000;

export class DynamoReputationCounter implements ReputationCounter {
  private readonly registered = new Set<string>();

  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly random: () => number = Math.random,
  ) {}

  async add(tallies: readonly SenderTally[]): Promise<void> {
    await Promise.all(tallies.map((t) => this.increment(t)));
    await Promise.all(tallies.map((t) => this.register(t)));
  }

  private async increment(t: SenderTally): Promise<void> {
    const shard = Math.floor(this.random() * T.counterShards) % T.counterShards;
    const fields = (['delivered', 'hardBounced', 'softBounced', 'complained'] as const).filter((f) => t[f] > 0);
    if (fields.length === 0) return;
    await this.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [T.partitionKey]: counterKey(t.provider, t.sender, shard), [T.sortKey]: hourKey(t.hourMs) },
        UpdateExpression: `ADD ${fields.map((f) => `#${f} :${f}`).join(', ')} SET #exp = :exp`,
        ExpressionAttributeNames: {
          ...Object.fromEntries(fields.map((f) => [`#${f}`, f])),
          '#exp': T.ttlAttribute,
        },
        ExpressionAttributeValues: {
          ...Object.fromEntries(fields.map((f) => [`:${f}`, t[f]])),
          ':exp': Math.floor((t.hourMs + HOUR_MS) / 1000) + T.counterTtlDays * DAY_S,
        },
      }),
    );
  }

  private async register(t: SenderTally): Promise<void> {
    const memo = `${t.provider}#${t.sender}#${t.hourMs}`;
    if (this.registered.has(memo)) return;
    await this.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: { [T.partitionKey]: registryKey(t.sender), [T.sortKey]: registrySortKey(t.sender, t.provider) },
        UpdateExpression: 'SET #provider = :provider, #sender = :sender, #seen = :seen, #exp = :exp',
        ExpressionAttributeNames: {
          '#provider': 'provider',
          '#sender': 'sender',
          '#seen': 'lastSeenAt',
          '#exp': T.ttlAttribute,
        },
        ExpressionAttributeValues: {
          ':provider': t.provider,
          ':sender': t.sender,
          ':seen': t.hourMs,
          ':exp': Math.floor((t.hourMs + HOUR_MS) / 1000) + T.counterTtlDays * DAY_S,
        },
      }),
    );
    if (this.registered.size >= REMEMBERED) this.registered.clear();
    this.registered.add(memo);
  }

  private async send(command: UpdateCommand): Promise<void> {
    try {
      await this.client.send(command);
    } catch (cause) {
      throw new TransientError('reputation counter write failed', { cause });
    }
  }
}

/** The evaluator's writes: a sender's stored state, changed only by the caller that saw the previous one. */
export class DynamoReputationStates {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  /**
   * Stores `next` with the rates it was judged on. When `next` differs from `previous` the write is
   * conditional on the row still holding `previous`, and true means this call made the change (so the
   * change is announced once); an unchanged state refreshes the figures unconditionally.
   */
  async save(
    key: { provider: string; sender: string },
    previous: ReputationState | undefined,
    next: ReputationState,
    r: Rates,
    nowMs: number,
  ): Promise<boolean> {
    const changed = previous !== next;
    try {
      await this.client.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: { [T.partitionKey]: registryKey(key.sender), [T.sortKey]: registrySortKey(key.sender, key.provider) },
          UpdateExpression: `SET #provider = :provider, #sender = :sender, #state = :state, #attempts = :attempts, #bounce = :bounce, #complaint = :complaint, #at = :at${changed ? ', #changed = :at' : ''}`,
          ...(changed
            ? {
                ConditionExpression: previous === undefined ? 'attribute_not_exists(#state)' : '#state = :previous',
              }
            : {}),
          ExpressionAttributeNames: {
            '#provider': 'provider',
            '#sender': 'sender',
            '#state': 'state',
            '#attempts': 'attempts',
            '#bounce': 'bounceRate',
            '#complaint': 'complaintRate',
            '#at': 'evaluatedAt',
            ...(changed ? { '#changed': 'changedAt' } : {}),
          },
          ExpressionAttributeValues: {
            ':provider': key.provider,
            ':sender': key.sender,
            ':state': next,
            ':attempts': r.attempts,
            ':bounce': r.bounceRate,
            ':complaint': r.complaintRate,
            ':at': nowMs,
            ...(changed && previous !== undefined ? { ':previous': previous } : {}),
          },
        }),
      );
      return changed;
    } catch (error) {
      if (isConditionalCheckFailure(error)) return false;
      throw new TransientError('reputation state write failed', { cause: error });
    }
  }
}
