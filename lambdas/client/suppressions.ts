/**
 * What sending code asks the suppression table. Reads only; never writes.
 *   isSuppressed(email, { topic?, transactional? })   one strongly consistent GetItem
 *   filterSendable(emails, { topic?, transactional? })  BatchGetItem, 100 keys a call, eventually consistent
 *   getRecord(email)                                   the whole item, typed
 * With `{ sender, brake: true }` a sender in `breach` has every subscription send refused
 * (`sender_breach`) without reading a single address; `brake: 'all'` refuses transactional mail too.
 */
import {
  type AttributeValue,
  BatchGetItemCommand,
  type BatchGetItemCommandOutput,
  GetItemCommand,
  type KeysAndAttributes,
} from '@aws-sdk/client-dynamodb';
import { normalizeRecipient } from '../core/event.js';
import {
  ANSWER_ATTRIBUTES,
  type SendQuestion as CoreSendQuestion,
  type RefusalReason,
  refusalReason,
} from '../core/suppression/answer.js';
import type { SuppressionRecord } from '../core/suppression/record.js';
import { upgradeSuppressionRecord } from '../core/suppression/schema.js';
import { isTopicName, resolveTopic, storedTopicNames, type TopicAliases } from '../core/topics.js';
import { fromItem } from './attribute-values.js';
import { type ResolvedConfig, resolveConfig, type SuppressionClientOptions } from './config.js';
import { createReputationClient, type ReputationClient } from './reputation.js';

export type { RefusalReason };

/** What a send is, and optionally the brake: whose reputation to check first. */
export interface SendQuestion extends CoreSendQuestion {
  /** The sending domain or scope, as `ratchet reputation` lists it; required with `brake`. */
  sender?: string;
  /**
   * `true`: refuse every subscription send while `sender` is in `breach` (transactional mail still
   * goes); `'all'`: refuse transactional mail too. Default: no brake, no reputation read.
   */
  brake?: boolean | 'all';
}

export interface FilterResult {
  /** Normalized (trimmed, lower-cased), de-duplicated addresses you may send to, in input order. */
  sendable: string[];
  /** Everything else, in input order: `invalid_address` carries the address as given. */
  suppressed: Array<{ email: string; reason: RefusalReason | 'invalid_address' | 'sender_breach' }>;
}

/**
 * The stored item in today's shape: the record plus the writer's `version` (optimistic-lock counter) and
 * `updatedAt`, and `schemaVersion`, the shape version it was brought up to.
 */
export type StoredSuppressionRecord = SuppressionRecord & {
  version?: number;
  updatedAt?: number;
  schemaVersion?: number;
};

export interface SuppressionClient {
  isSuppressed(email: string, question?: SendQuestion): Promise<boolean>;
  filterSendable(emails: readonly string[], question?: SendQuestion): Promise<FilterResult>;
  getRecord(email: string): Promise<StoredSuppressionRecord | undefined>;
}

const BATCH_SIZE = 100;

export function createSuppressionClient(
  options: SuppressionClientOptions & { reputation?: ReputationClient } = {},
): SuppressionClient {
  const config = resolveConfig(options);
  let reputation = options.reputation;
  const braked = async (question: SendQuestion): Promise<boolean> => {
    if (question.brake === undefined || question.brake === false) return false;
    if (typeof question.sender !== 'string') throw new TypeError('brake needs a sender');
    if (question.transactional === true && question.brake !== 'all') return false;
    reputation ??= createReputationClient({ client: config.client, tableName: options.reputationTable });
    return (await reputation.senderStatus(question.sender)).state === 'breach';
  };
  return {
    // An address that is not one cannot be mailed: true, as filterSendable reports `invalid_address`.
    isSuppressed: async (email, question = {}) => {
      const topic = topicOf(question, config);
      const address = validAddress(email);
      if (address === undefined) return true;
      if (await braked(question)) return true;
      const item = await getItem(config, address, projection(topic, config.aliases), true);
      return refusalReason(item, { ...question, topic }, config.aliases) !== undefined;
    },
    filterSendable: async (emails, question = {}) =>
      (await braked(question)) ? refuseAll(emails) : filterSendable(config, emails, question),
    getRecord: async (email) => {
      const item = await getItem(config, normalizeRecipient(email), undefined, true);
      return item as StoredSuppressionRecord | undefined;
    },
  };
}

async function filterSendable(
  config: ResolvedConfig,
  emails: readonly string[],
  question: SendQuestion,
): Promise<FilterResult> {
  const topic = topicOf(question, config);
  const order: Array<{ given: string; address?: string }> = [];
  const unique = new Set<string>();
  for (const given of emails) {
    const address = validAddress(given);
    if (address === undefined) order.push({ given });
    else if (!unique.has(address)) {
      unique.add(address);
      order.push({ given, address });
    }
  }
  const items = await batchGet(config, [...unique], projection(topic, config.aliases));
  const result: FilterResult = { sendable: [], suppressed: [] };
  for (const { given, address } of order) {
    if (address === undefined) {
      result.suppressed.push({ email: given, reason: 'invalid_address' });
      continue;
    }
    const reason = refusalReason(items.get(address), { ...question, topic }, config.aliases);
    if (reason === undefined) result.sendable.push(address);
    else result.suppressed.push({ email: address, reason });
  }
  return result;
}

/** The brake: every valid address refused with `sender_breach`, and no suppression read at all. */
function refuseAll(emails: readonly string[]): FilterResult {
  const result: FilterResult = { sendable: [], suppressed: [] };
  const seen = new Set<string>();
  for (const given of emails) {
    const address = validAddress(given);
    if (address === undefined) result.suppressed.push({ email: given, reason: 'invalid_address' });
    else if (!seen.has(address)) {
      seen.add(address);
      result.suppressed.push({ email: address, reason: 'sender_breach' });
    }
  }
  return result;
}

/** Chunks of 100 keys, `concurrency` calls in flight, UnprocessedKeys retried with backoff. */
async function batchGet(
  config: ResolvedConfig,
  keys: string[],
  attributes: Projection,
): Promise<Map<string, Record<string, unknown>>> {
  const found = new Map<string, Record<string, unknown>>();
  const chunks: string[][] = [];
  for (let i = 0; i < keys.length; i += BATCH_SIZE) chunks.push(keys.slice(i, i + BATCH_SIZE));
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!;
      let request: KeysAndAttributes | undefined = {
        Keys: chunk.map((email) => ({ email: { S: email } })),
        ConsistentRead: false,
        ProjectionExpression: attributes.expression,
        ExpressionAttributeNames: attributes.names,
      };
      for (let attempt = 1; request?.Keys?.length; attempt++) {
        if (attempt > config.maxAttempts)
          throw new Error(`suppression reads still unprocessed after ${config.maxAttempts} attempts`);
        if (attempt > 1) await backoff(attempt);
        const response: BatchGetItemCommandOutput = await config.client.send(
          new BatchGetItemCommand({ RequestItems: { [config.tableName]: request } }),
        );
        for (const item of response.Responses?.[config.tableName] ?? []) {
          const plain = fromItem(item);
          if (typeof plain['email'] === 'string') found.set(plain['email'], upgradeSuppressionRecord(plain));
        }
        request = response.UnprocessedKeys?.[config.tableName];
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(config.concurrency, chunks.length) }, worker));
  return found;
}

/** Full jitter, 50 ms doubling to at most 2 s (the AWS guidance for UnprocessedKeys). */
function backoff(attempt: number): Promise<void> {
  const cap = Math.min(2000, 50 * 2 ** (attempt - 2));
  return new Promise((resolve) => setTimeout(resolve, Math.random() * cap));
}

async function getItem(
  config: ResolvedConfig,
  email: string,
  attributes: Projection | undefined,
  consistent: boolean,
): Promise<Record<string, unknown> | undefined> {
  const response = await config.client.send(
    new GetItemCommand({
      TableName: config.tableName,
      Key: { email: { S: email } },
      ConsistentRead: consistent,
      ...(attributes
        ? { ProjectionExpression: attributes.expression, ExpressionAttributeNames: attributes.names }
        : {}),
    }),
  );
  // Every item read passes the table's one versioned reader: older shapes arrive in today's.
  return response.Item
    ? upgradeSuppressionRecord(fromItem(response.Item as Record<string, AttributeValue>))
    : undefined;
}

interface Projection {
  expression: string;
  names: Record<string, string>;
}

/**
 * Only what the answer needs: the status fields, and one topic's state (not the whole map), under each
 * name it may be stored under (its canonical names too, for what was stored before an alias was set).
 */
function projection(topic: string | undefined, aliases: TopicAliases): Projection {
  const names: Record<string, string> = {};
  const paths = ANSWER_ATTRIBUTES.map((name, i) => {
    names[`#a${i}`] = name;
    return `#a${i}`;
  });
  if (topic !== undefined) {
    names['#topics'] = 'topics';
    storedTopicNames(topic, aliases).forEach((name, i) => {
      names[`#topic${i}`] = name;
      paths.push(`#topics.#topic${i}`);
    });
  }
  return { expression: paths.join(', '), names };
}

function validAddress(value: unknown): string | undefined {
  try {
    return normalizeRecipient(value);
  } catch {
    return undefined;
  }
}

function topicOf(question: SendQuestion, config: ResolvedConfig): string | undefined {
  if (question.topic === undefined) return undefined;
  if (!isTopicName(question.topic))
    throw new TypeError('topic is not a topic name (^[A-Za-z0-9][A-Za-z0-9:._-]{0,127}$)');
  return resolveTopic(question.topic, config.aliases);
}
