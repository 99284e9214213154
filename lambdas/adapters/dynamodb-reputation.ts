/**
 * The reputation table's reading side, behind one small port (`ReputationReader`): what the CLI, the
 * evaluator and the console ask. The table's layout is this adapter's alone: reputation-keys.ts spells
 * it (without an SDK, for the client's brake), dynamodb-reputation-writer.ts is its writing side.
 *
 * Partition limits: a sender's counter partition takes one write per stream batch and shard
 * (REPUTATION_TABLE, cited there against DynamoDB's 1,000 WCU/s); a window is one Query of its hours'
 * cells (one per hour and stream shard that counted in it, ~150 bytes each).
 */
import { type DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { TransientError } from '../core/errors.js';
import { settleWithLimit } from '../core/pipeline/concurrency.js';
import {
  addCounts,
  HOUR_MS,
  hourStart,
  levelOf,
  nextState,
  type OutcomeCounts,
  type ReputationState,
  type ReputationThresholds,
  type ReputationWindow,
  rates,
  STATE_WINDOW,
  WINDOW_HOURS,
  ZERO_COUNTS,
} from '../core/reputation/index.js';
import {
  COUNT_FIELDS,
  counterKey,
  hourEndKey,
  hourKey,
  hourOfKey,
  isState,
  num,
  type RegistryRow,
  registryKey,
  registryPartitions,
  registryPrefix,
  registrySortKey,
  type StoredStatus,
  storedStatusOf,
} from './reputation-keys.js';
import { REPUTATION_TABLE } from './tables.js';

export type { RegistryRow, StoredStatus } from './reputation-keys.js';

const T = REPUTATION_TABLE;

/** One sender with one provider, over one window: what `ratchet reputation` prints a row of. */
export interface SenderStatus extends OutcomeCounts {
  provider: string;
  sender: string;
  window: ReputationWindow;
  state: ReputationState;
  attempts: number;
  bounceRate: number;
  complaintRate: number;
  /** The state the evaluator last stored (24 h, with hysteresis), and when it last changed (epoch ms). */
  storedState?: ReputationState;
  changedAt?: number;
}

export interface HourlyCount extends OutcomeCounts {
  provider: string;
  /** Start of the hour, epoch ms (UTC). */
  hourMs: number;
}

/** The reading port: the CLI, the evaluator, the client and the console depend on this, not on DynamoDB. */
export interface ReputationReader {
  /** Every registered sender (or those named `sender`), one row per provider, with the window's counts and state. */
  listSenders(window: ReputationWindow, options?: { sender?: string; nowMs?: number }): Promise<SenderStatus[]>;
  /** The last `hours` hours (the current one included), oldest first, one row per provider and hour; zero hours included. */
  hourlySeries(sender: string, hours: number, options?: { provider?: string; nowMs?: number }): Promise<HourlyCount[]>;
  /** The evaluator's stored status per provider for `sender` (none: never evaluated). */
  storedStatus(sender: string): Promise<StoredStatus[]>;
}

/** Senders read concurrently by a listing, one Query each. */
const SENDER_CONCURRENCY = 4;
/** Hours a series may span: the counters' own lifetime. */
const MAX_SERIES_HOURS = T.counterTtlDays * 24;

export class DynamoReputationReader implements ReputationReader {
  constructor(
    private readonly client: DynamoDBDocumentClient,
    private readonly tableName: string,
    private readonly thresholds: ReputationThresholds,
  ) {}

  async listSenders(
    window: ReputationWindow,
    options: { sender?: string; nowMs?: number } = {},
  ): Promise<SenderStatus[]> {
    const nowMs = options.nowMs ?? Date.now();
    const registered = options.sender === undefined ? await this.registry() : await this.registryRows(options.sender);
    const settled = await settleWithLimit(registered, SENDER_CONCURRENCY, async (row) => {
      const counts = await this.windowCounts(row.provider, row.sender, window, nowMs);
      const r = rates(counts);
      const stored = isState(row.state) ? row.state : undefined;
      // 24 h: what the evaluator would store now (idempotent, so equal to the stored state once it ran);
      // 7 d: the rates' own level, without memory.
      const state = window === STATE_WINDOW ? nextState(stored, r, this.thresholds) : levelOf(r, this.thresholds);
      const status: SenderStatus = { provider: row.provider, sender: row.sender, window, state, ...counts, ...r };
      if (stored !== undefined) status.storedState = stored;
      if (typeof row.changedAt === 'number') status.changedAt = row.changedAt;
      return status;
    });
    const out: SenderStatus[] = [];
    for (const result of settled) {
      if (result.status === 'rejected') throw result.reason;
      out.push(result.value);
    }
    return out.sort((a, b) => a.sender.localeCompare(b.sender) || a.provider.localeCompare(b.provider));
  }

  async hourlySeries(
    sender: string,
    hours: number,
    options: { provider?: string; nowMs?: number } = {},
  ): Promise<HourlyCount[]> {
    const span = Math.max(1, Math.min(MAX_SERIES_HOURS, Math.floor(hours)));
    const last = hourStart(options.nowMs ?? Date.now());
    const first = last - (span - 1) * HOUR_MS;
    const providers =
      options.provider !== undefined
        ? [options.provider]
        : (await this.registryRows(sender)).map((row) => row.provider);
    const series: HourlyCount[] = [];
    for (const provider of providers) {
      const byHour = await this.hourCounts(provider, sender, first, last);
      for (let hourMs = first; hourMs <= last; hourMs += HOUR_MS)
        series.push({ provider, hourMs, ...(byHour.get(hourMs) ?? ZERO_COUNTS) });
    }
    return series.sort((a, b) => a.hourMs - b.hourMs || a.provider.localeCompare(b.provider));
  }

  async storedStatus(sender: string): Promise<StoredStatus[]> {
    return (await this.registryRows(sender)).flatMap((row) => storedStatusOf(row) ?? []);
  }

  /** One registry row (tests and the writer's conditional updates read it this way). */
  async registryRow(sender: string, provider: string): Promise<RegistryRow | undefined> {
    const result = await this.send(
      new GetCommand({
        TableName: this.tableName,
        Key: { [T.partitionKey]: registryKey(sender), [T.sortKey]: registrySortKey(sender, provider) },
        ConsistentRead: true,
      }),
    );
    return result.Item as RegistryRow | undefined;
  }

  /** Every registry row, partition by partition. */
  async registry(): Promise<RegistryRow[]> {
    const rows: RegistryRow[] = [];
    for (const partition of registryPartitions()) rows.push(...(await this.query(partition)));
    return rows;
  }

  private registryRows(sender: string): Promise<RegistryRow[]> {
    return this.query(registryKey(sender), registryPrefix(sender));
  }

  private async windowCounts(
    provider: string,
    sender: string,
    window: ReputationWindow,
    nowMs: number,
  ): Promise<OutcomeCounts> {
    const last = hourStart(nowMs);
    const first = last - (WINDOW_HOURS[window] - 1) * HOUR_MS;
    let total: OutcomeCounts = ZERO_COUNTS;
    for (const counts of (await this.hourCounts(provider, sender, first, last)).values())
      total = addCounts(total, counts);
    return total;
  }

  /** Every cell of the hours first..last (one per hour and stream shard), summed per hour. */
  private async hourCounts(provider: string, sender: string, first: number, last: number) {
    const cells = await this.queryRange(counterKey(provider, sender), hourKey(first), hourEndKey(last));
    const byHour = new Map<number, OutcomeCounts>();
    for (const item of cells) {
      const hourMs = hourOfKey(item[T.sortKey]);
      const counts = Object.fromEntries(COUNT_FIELDS.map((f) => [f, num(item[f])])) as unknown as OutcomeCounts;
      byHour.set(hourMs, addCounts(byHour.get(hourMs) ?? ZERO_COUNTS, counts));
    }
    return byHour;
  }

  private async query(pk: string, skPrefix?: string): Promise<RegistryRow[]> {
    const items = await this.pages({
      KeyConditionExpression: skPrefix ? '#pk = :pk AND begins_with(#sk, :prefix)' : '#pk = :pk',
      ExpressionAttributeNames: skPrefix ? { '#pk': T.partitionKey, '#sk': T.sortKey } : { '#pk': T.partitionKey },
      ExpressionAttributeValues: skPrefix ? { ':pk': pk, ':prefix': skPrefix } : { ':pk': pk },
    });
    return items.filter(
      (item) => typeof item.provider === 'string' && typeof item.sender === 'string',
    ) as unknown as RegistryRow[];
  }

  private queryRange(pk: string, from: string, to: string) {
    return this.pages({
      KeyConditionExpression: '#pk = :pk AND #sk BETWEEN :from AND :to',
      ExpressionAttributeNames: { '#pk': T.partitionKey, '#sk': T.sortKey },
      ExpressionAttributeValues: { ':pk': pk, ':from': from, ':to': to },
    });
  }

  /** A Query to its end; bounded by the data (a window's cells, a registry partition's senders). */
  private async pages(input: Record<string, unknown>): Promise<Array<Record<string, unknown>>> {
    const items: Array<Record<string, unknown>> = [];
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.send(
        new QueryCommand({ TableName: this.tableName, ...input, ExclusiveStartKey: startKey } as never),
      );
      items.push(...((page.Items as Array<Record<string, unknown>>) ?? []));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return items;
  }

  private async send<R>(command: {
    input: unknown;
  }): Promise<R & { Items?: unknown[]; Item?: unknown; LastEvaluatedKey?: Record<string, unknown> }> {
    try {
      return (await this.client.send(command as never)) as never;
    } catch (cause) {
      throw new TransientError('reputation read failed', { cause });
    }
  }
}
