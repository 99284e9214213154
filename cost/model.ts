/**
 * The cost model: per million events of the mix, per front door, one line item per thing AWS
 * bills. Every quantity is either measured (cost/measure.ts), read from the template (cost/template.ts)
 * or priced from cost/prices.ts; the few assumptions are named in `notes` and printed with the table.
 */

import { readUnits, STORAGE_OVERHEAD_BYTES, writeUnits } from '../lambdas/adapters/dynamodb-item-size.js';
import { REPUTATION } from '../lib/definitions.js';
import { KINDS, type Measured, MIX } from './measure.js';
import { PRICES } from './prices.js';
import { countingItems } from './reputation.js';

import type { TemplateFacts } from './template.js';

export const EVENTS = 1_000_000;
export const SES_SHARE = 0.8;
export const SENDGRID_BATCH = 50;
/**
 * Of the `delivered` events, the share whose address already has a record (so the consumer writes it):
 * the addresses that soft-bounced before and are still mailed. Assumed equal to the soft-bounce share.
 */
export const DELIVERED_WITH_RECORD = MIX.soft_bounce;
/** Lambda's own START/END/REPORT lines in text format, bytes per invocation (a typical REPORT is the longest). */
export const PLATFORM_LOG_BYTES = 60 + 50 + 190;
/** CloudWatch Logs counts 26 bytes of overhead per log event (PutLogEvents size rule). */
export const LOG_EVENT_OVERHEAD = 26;

export interface Item {
  service: string;
  item: string;
  quantity: number;
  unit: string;
  usd: number;
  /** Outside the target: paid for SES event delivery whatever receives it. */
  inTarget?: false;
  /** What reputation counting adds (docs/reputation.md): summed as `reputationPerMillion`. */
  reputation?: true;
}

export interface DoorCost {
  door: 'apiGateway' | 'functionUrl';
  sesFeed: 'sqs' | 'https';
  totalPerMillion: number;
  outsideTargetPerMillion: number;
  /** Everything, SNS's own charges included. */
  allInPerMillion: number;
  /** What reputation counting adds, all in: the inbox stream consumer's line items. */
  reputationPerMillion: number;
  items: Item[];
  notes: string[];
}

const GB = 1024 ** 3;

/** SQS bills each 64 KB chunk of a request's payload as one request. */
export const SQS_CHUNK_BYTES = 64 * 1024;
const chunks = (bytes: number) => Math.max(1, Math.ceil(bytes / SQS_CHUNK_BYTES));

export function costFor(door: DoorCost['door'], facts: TemplateFacts, m: Measured, notes: string[]): DoorCost {
  const items: Item[] = [];
  const add = (
    service: string,
    item: string,
    quantity: number,
    unit: string,
    price: { usd: number },
    extra: Partial<Item> = {},
  ) => items.push({ service, item, quantity, unit, usd: quantity * price.usd, ...extra });

  const sesEvents = EVENTS * SES_SHARE;
  const sgEvents = EVENTS - sesEvents;
  const sgRequests = sgEvents / SENDGRID_BATCH;
  const feed = facts.sesFeed === 'sqs' ? facts.feed : undefined;
  // With the feed, SES events never reach the front door: only SendGrid's requests do.
  const requests = feed ? sgRequests : sesEvents + sgRequests;
  const gbSecond = (f: TemplateFacts['edge']) =>
    f.architecture === 'arm64' ? PRICES.lambdaArmGbSecond : PRICES.lambdaX86GbSecond;

  // Front door.
  if (door === 'apiGateway') add('API Gateway', 'HTTP API requests', requests, 'requests', PRICES.httpApiRequest);
  else add('Lambda', 'Function URL requests (no charge of their own)', requests, 'requests', PRICES.functionUrlRequest);

  // Edge Lambda.
  add('Lambda', `edge invocations`, requests, 'requests', PRICES.lambdaRequest);
  if (feed) {
    const edgeGbS = ((sgRequests * Math.ceil(m.edgeSendgridBatchMs)) / 1000) * (facts.edge.memoryMb / 1024);
    add(
      'Lambda',
      `edge duration (${facts.edge.memoryMb} MB ${facts.edge.architecture}; ${m.edgeSendgridBatchMs.toFixed(0)} ms per SendGrid batch)`,
      edgeGbS,
      'GB-s',
      gbSecond(facts.edge),
    );
  } else {
    const edgeGbS =
      ((sesEvents * Math.ceil(m.edgeSesMs) + sgRequests * Math.ceil(m.edgeSendgridBatchMs)) / 1000) *
      (facts.edge.memoryMb / 1024);
    add(
      'Lambda',
      `edge duration (${facts.edge.memoryMb} MB ${facts.edge.architecture}; ${m.edgeSesMs.toFixed(1)} ms per SES request, ${m.edgeSendgridBatchMs.toFixed(0)} ms per SendGrid batch)`,
      edgeGbS,
      'GB-s',
      gbSecond(facts.edge),
    );
  }

  // SES feed: SNS sends each envelope to the feed queue; the event source receives batches of the
  // template's size and deletes them; the feed function runs the edge code once per batch.
  const feedBatches = feed ? sesEvents / facts.feedBatchSize : 0;
  if (feed) {
    const batch = facts.feedBatchSize;
    add(
      'SQS',
      `SES feed: SendMessage by SNS (${(m.sesEnvelopeBytes / 1024).toFixed(1)} KB envelope)`,
      sesEvents * chunks(m.sesEnvelopeBytes),
      'requests',
      PRICES.sqsRequest,
    );
    add(
      'SQS',
      `SES feed: ReceiveMessage (event source, ${batch} per call, 64 KB chunks)`,
      feedBatches * chunks(batch * m.sesEnvelopeBytes),
      'requests',
      PRICES.sqsRequest,
    );
    add('SQS', 'SES feed: DeleteMessageBatch (event source)', feedBatches, 'requests', PRICES.sqsRequest);
    add('Lambda', `SES feed invocations (batches of ${batch})`, feedBatches, 'requests', PRICES.lambdaRequest);
    // Measured per batch of `m.feedBatch` (run.ts measures the template's batch size, so no scaling
    // happens in practice); scaled linearly otherwise, which overstates a larger batch (one send a batch).
    const batchMs = (m.feedBatchMs / m.feedBatch) * batch;
    const feedGbS = ((feedBatches * Math.ceil(batchMs)) / 1000) * (feed.memoryMb / 1024);
    add(
      'Lambda',
      `SES feed duration (${feed.memoryMb} MB ${feed.architecture}; ${batchMs.toFixed(1)} ms per batch of ${batch})`,
      feedGbS,
      'GB-s',
      gbSecond(feed),
    );
  }

  // SQS: the edge (and the feed, once per batch) sends (SendMessageBatch ≤ 10), the event source
  // receives (≤ 10 per call) and deletes (batches of 10).
  const sgSends = sgRequests * Math.ceil(SENDGRID_BATCH / 10);
  if (feed) {
    add('SQS', 'SendMessageBatch (edge, SendGrid)', sgSends, 'requests', PRICES.sqsRequest);
    add(
      'SQS',
      `SendMessageBatch (SES feed, one per batch, ${(m.eventMessageBytes / 1024).toFixed(1)} KB a message)`,
      feedBatches * chunks(facts.feedBatchSize * m.eventMessageBytes),
      'requests',
      PRICES.sqsRequest,
    );
  } else {
    add('SQS', 'SendMessageBatch (edge)', sesEvents + sgSends, 'requests', PRICES.sqsRequest);
  }
  add(
    'SQS',
    'ReceiveMessage + DeleteMessageBatch (event source, 10 per call)',
    (2 * EVENTS) / 10,
    'requests',
    PRICES.sqsRequest,
  );

  // Inbox: one conditional put per event, sized from real rows.
  const inboxWru = KINDS.reduce(
    (n, k) =>
      n +
      MIX[k] * (sesEvents * writeUnits(m.inboxItemBytes.ses[k]) + sgEvents * writeUnits(m.inboxItemBytes.sendgrid[k])),
    0,
  );
  add('DynamoDB', 'inbox conditional puts', inboxWru, 'write units', PRICES.dynamoWriteUnit);
  const inboxBytes = KINDS.reduce(
    (n, k) =>
      n +
      MIX[k] *
        (sesEvents * (m.inboxItemBytes.ses[k] + STORAGE_OVERHEAD_BYTES) +
          sgEvents * (m.inboxItemBytes.sendgrid[k] + STORAGE_OVERHEAD_BYTES)),
    0,
  );
  const inboxGbMonths = (inboxBytes / GB) * (facts.inboxTtlDays / 30);
  add(
    'DynamoDB',
    `inbox storage (${facts.inboxTtlDays}-day TTL)`,
    inboxGbMonths,
    'GB-months',
    PRICES.dynamoStorageGbMonth,
  );
  if (facts.inboxPitr)
    add('DynamoDB', 'inbox point-in-time recovery', inboxGbMonths, 'GB-months', PRICES.dynamoPitrGbMonth);

  // Reputation counting (cost/reputation.ts): the inbox stream's consumer, full batches of the mapping's size.
  for (const i of countingItems(m.counting, EVENTS, REPUTATION.counting.batchSize))
    add(i.service, i.item, i.quantity, i.unit, i.price, { reputation: true });

  // Consumer: a write only when something changes. A suppressing event (hard bounce, complaint,
  // unsubscribe) on a new address, as this mix's are, is one create-only put with no read
  // (DynamoSuppressionStore's createFirst); every other event is one strongly consistent read first.
  const writes = EVENTS * (1 - MIX.delivered) + EVENTS * MIX.delivered * DELIVERED_WITH_RECORD;
  const readFirst = EVENTS * (MIX.delivered + MIX.soft_bounce);
  add(
    'DynamoDB',
    'suppression reads (consistent GetItem; none before a suppressing event)',
    readFirst * readUnits(m.suppressionItemBytes),
    'read units',
    PRICES.dynamoReadUnit,
  );
  add(
    'DynamoDB',
    'suppression writes (only on a real change)',
    writes * writeUnits(m.suppressionItemBytes),
    'write units',
    PRICES.dynamoWriteUnit,
  );
  const records = EVENTS * (1 - MIX.delivered);
  const suppressionGbMonth = (records * (m.suppressionItemBytes + STORAGE_OVERHEAD_BYTES)) / GB;
  add(
    'DynamoDB',
    'suppression storage (records these events create, per month kept)',
    suppressionGbMonth,
    'GB-months',
    PRICES.dynamoStorageGbMonth,
  );
  if (facts.suppressionPitr)
    add(
      'DynamoDB',
      'suppression point-in-time recovery (per month kept)',
      suppressionGbMonth,
      'GB-months',
      PRICES.dynamoPitrGbMonth,
    );

  // Consumer Lambda, batches of the template's size.
  const batches = EVENTS / facts.consumerBatchSize;
  add(
    'Lambda',
    `consumer invocations (batches of ${facts.consumerBatchSize})`,
    batches,
    'requests',
    PRICES.lambdaRequest,
  );
  const perEventMs = m.consumerBatchMs / m.consumerBatch;
  const consumerGbS =
    ((batches * Math.ceil(perEventMs * facts.consumerBatchSize)) / 1000) * (facts.consumer.memoryMb / 1024);
  add(
    'Lambda',
    `consumer duration (${facts.consumer.memoryMb} MB ${facts.consumer.architecture}; ${perEventMs.toFixed(2)} ms per event)`,
    consumerGbS,
    'GB-s',
    gbSecond(facts.consumer),
  );

  // CloudWatch Logs: measured application lines + EMF, plus Lambda's platform lines unless the template drops them.
  const logBytes = (f: TemplateFacts['edge'], app: number, lines: number) =>
    app + lines * LOG_EVENT_OVERHEAD + (f.platformLogLines ? PLATFORM_LOG_BYTES + 3 * LOG_EVENT_OVERHEAD : 0);
  const ingested =
    requests * logBytes(facts.edge, m.edgeLogBytes, m.edgeLogLines) +
    batches * logBytes(facts.consumer, m.consumerLogBytes, m.consumerLogLines) +
    (feed
      ? feedBatches *
        logBytes(
          feed,
          m.feedLogBytes * (facts.feedBatchSize / m.feedBatch),
          m.feedLogLines * (facts.feedBatchSize / m.feedBatch),
        )
      : 0);
  add(
    'CloudWatch Logs',
    `ingestion (edge: a line per request${feed ? '; SES feed: a summary line per batch' : ''}; consumer: a line per batch; EMF once per invocation)`,
    ingested / GB,
    'GB',
    PRICES.logsIngestGb,
  );
  const retentionMonths = (facts.edge.logRetentionDays ?? 30) / 30;
  add(
    'CloudWatch Logs',
    `storage (${facts.edge.logRetentionDays ?? 30}-day retention, compressed ×${m.logCompression.toFixed(2)})`,
    (ingested / GB) * m.logCompression * retentionMonths,
    'GB-months',
    PRICES.logsStorageGbMonth,
  );

  // SNS: what SES event delivery costs whoever receives it; outside the target, inside the all-in total.
  // A publish is billed per 64 KB chunk; SES's JSON message is a few KB.
  add('SNS', 'SES → SNS publishes', sesEvents, 'publishes', PRICES.snsPublish, { inTarget: false });
  if (feed)
    add('SNS', 'SQS deliveries to the feed queue', sesEvents, 'deliveries', PRICES.snsSqsDelivery, { inTarget: false });
  else add('SNS', 'HTTPS deliveries to the edge', sesEvents, 'deliveries', PRICES.snsHttpDelivery, { inTarget: false });

  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  for (const i of items) i.usd = round(i.usd);
  return {
    door,
    sesFeed: feed ? 'sqs' : 'https',
    totalPerMillion: round(items.filter((i) => i.inTarget !== false).reduce((n, i) => n + i.usd, 0)),
    outsideTargetPerMillion: round(items.filter((i) => i.inTarget === false).reduce((n, i) => n + i.usd, 0)),
    allInPerMillion: round(items.reduce((n, i) => n + i.usd, 0)),
    reputationPerMillion: round(items.filter((i) => i.reputation).reduce((n, i) => n + i.usd, 0)),
    items,
    notes,
  };
}
