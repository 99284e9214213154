/**
 * The reputation table's evaluator-side writes (layout: reputation-keys.ts): a sender's stored state.
 * The counters are written by the stream consumer (dynamodb-reputation-cells.ts).
 */
import { type DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import type { Rates, ReputationState } from '../core/reputation/index.js';
import { isConditionalCheckFailure } from './aws-clients.js';
import { registryKey, registrySortKey } from './reputation-keys.js';
import { REPUTATION_TABLE } from './tables.js';

const T = REPUTATION_TABLE;

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
