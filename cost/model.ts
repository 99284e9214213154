/**
 * The cost model: per million events of the mix, per front door, one line item per thing AWS
 * bills. Every quantity is either measured (cost/measure.ts), read from the template (cost/template.ts)
 * or priced from cost/prices.ts; the few assumptions are named in `notes` and printed with the table.
 */
import { PRICES } from './prices.js';
import type { TemplateFacts } from './template.js';
import { KINDS, MIX, type Measured } from './measure.js';
import { readUnits, STORAGE_OVERHEAD_BYTES, writeUnits } from '../lambdas/adapters/dynamodb-item-size.js';

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
}

export interface DoorCost {
  door: 'apiGateway' | 'functionUrl';
  totalPerMillion: number;
  outsideTargetPerMillion: number;
  items: Item[];
  notes: string[];
}

const GB = 1024 ** 3;

export function costFor(door: DoorCost['door'], facts: TemplateFacts, m: Measured, notes: string[]): DoorCost {
  const items: Item[] = [];
  const add = (service: string, item: string, quantity: number, unit: string, price: { usd: number }, extra: Partial<Item> = {}) =>
    items.push({ service, item, quantity, unit, usd: quantity * price.usd, ...extra });

  const sesEvents = EVENTS * SES_SHARE;
  const sgEvents = EVENTS - sesEvents;
  const sgRequests = sgEvents / SENDGRID_BATCH;
  const requests = sesEvents + sgRequests;

  // Front door.
  if (door === 'apiGateway') add('API Gateway', 'HTTP API requests', requests, 'requests', PRICES.httpApiRequest);
  else add('Lambda', 'Function URL requests (no charge of their own)', requests, 'requests', PRICES.functionUrlRequest);

  // Edge Lambda.
  const gbSecond = (f: TemplateFacts['edge']) => (f.architecture === 'arm64' ? PRICES.lambdaArmGbSecond : PRICES.lambdaX86GbSecond);
  add('Lambda', `edge invocations`, requests, 'requests', PRICES.lambdaRequest);
  const edgeGbS =
    (sesEvents * Math.ceil(m.edgeSesMs) + sgRequests * Math.ceil(m.edgeSendgridBatchMs)) / 1000 * (facts.edge.memoryMb / 1024);
  add('Lambda', `edge duration (${facts.edge.memoryMb} MB ${facts.edge.architecture}; ${m.edgeSesMs.toFixed(1)} ms per SES request, ${m.edgeSendgridBatchMs.toFixed(0)} ms per SendGrid batch)`, edgeGbS, 'GB-s', gbSecond(facts.edge));

  // SQS: the edge sends (SendMessageBatch ≤ 10), the event source receives (≤ 10 per call) and deletes (batches of 10).
  const sends = sesEvents + sgRequests * Math.ceil(SENDGRID_BATCH / 10);
  add('SQS', 'SendMessageBatch (edge)', sends, 'requests', PRICES.sqsRequest);
  add('SQS', 'ReceiveMessage + DeleteMessageBatch (event source, 10 per call)', 2 * EVENTS / 10, 'requests', PRICES.sqsRequest);

  // Inbox: one conditional put per event, sized from real rows.
  const inboxWru = KINDS.reduce(
    (n, k) => n + MIX[k] * (sesEvents * writeUnits(m.inboxItemBytes.ses[k]) + sgEvents * writeUnits(m.inboxItemBytes.sendgrid[k])),
    0,
  );
  add('DynamoDB', 'inbox conditional puts', inboxWru, 'write units', PRICES.dynamoWriteUnit);
  const inboxBytes = KINDS.reduce(
    (n, k) => n + MIX[k] * (sesEvents * (m.inboxItemBytes.ses[k] + STORAGE_OVERHEAD_BYTES) + sgEvents * (m.inboxItemBytes.sendgrid[k] + STORAGE_OVERHEAD_BYTES)),
    0,
  );
  const inboxGbMonths = (inboxBytes / GB) * (facts.inboxTtlDays / 30);
  add('DynamoDB', `inbox storage (${facts.inboxTtlDays}-day TTL)`, inboxGbMonths, 'GB-months', PRICES.dynamoStorageGbMonth);
  if (facts.inboxPitr) add('DynamoDB', 'inbox point-in-time recovery', inboxGbMonths, 'GB-months', PRICES.dynamoPitrGbMonth);

  // Consumer: one strongly consistent read per event; a write only when something changes.
  const writes = EVENTS * (1 - MIX.delivered) + EVENTS * MIX.delivered * DELIVERED_WITH_RECORD;
  add('DynamoDB', 'suppression reads (consistent GetItem)', EVENTS * readUnits(m.suppressionItemBytes), 'read units', PRICES.dynamoReadUnit);
  add('DynamoDB', 'suppression writes (only on a real change)', writes * writeUnits(m.suppressionItemBytes), 'write units', PRICES.dynamoWriteUnit);
  const records = EVENTS * (1 - MIX.delivered);
  const suppressionGbMonth = (records * (m.suppressionItemBytes + STORAGE_OVERHEAD_BYTES)) / GB;
  add('DynamoDB', 'suppression storage (records these events create, per month kept)', suppressionGbMonth, 'GB-months', PRICES.dynamoStorageGbMonth);
  if (facts.suppressionPitr) add('DynamoDB', 'suppression point-in-time recovery (per month kept)', suppressionGbMonth, 'GB-months', PRICES.dynamoPitrGbMonth);

  // Consumer Lambda, batches of the template's size.
  const batches = EVENTS / facts.consumerBatchSize;
  add('Lambda', `consumer invocations (batches of ${facts.consumerBatchSize})`, batches, 'requests', PRICES.lambdaRequest);
  const perEventMs = m.consumerBatchMs / m.consumerBatch;
  const consumerGbS = (batches * Math.ceil(perEventMs * facts.consumerBatchSize)) / 1000 * (facts.consumer.memoryMb / 1024);
  add('Lambda', `consumer duration (${facts.consumer.memoryMb} MB ${facts.consumer.architecture}; ${perEventMs.toFixed(2)} ms per event)`, consumerGbS, 'GB-s', gbSecond(facts.consumer));

  // CloudWatch Logs: measured application lines + EMF, plus Lambda's platform lines unless the template drops them.
  const logBytes = (f: TemplateFacts['edge'], app: number, lines: number) =>
    app + lines * LOG_EVENT_OVERHEAD + (f.platformLogLines ? PLATFORM_LOG_BYTES + 3 * LOG_EVENT_OVERHEAD : 0);
  const ingested = requests * logBytes(facts.edge, m.edgeLogBytes, m.edgeLogLines) + batches * logBytes(facts.consumer, m.consumerLogBytes, m.consumerLogLines);
  add('CloudWatch Logs', 'ingestion (edge: a line per request; consumer: a line per batch; EMF once per invocation)', ingested / GB, 'GB', PRICES.logsIngestGb);
  const retentionMonths = (facts.edge.logRetentionDays ?? 30) / 30;
  add('CloudWatch Logs', `storage (${facts.edge.logRetentionDays ?? 30}-day retention, compressed ×${m.logCompression.toFixed(2)})`, (ingested / GB) * m.logCompression * retentionMonths, 'GB-months', PRICES.logsStorageGbMonth);

  // SNS: what SES event delivery costs whoever receives it; shown, not counted against the target.
  add('SNS', 'SES → SNS publishes', sesEvents, 'publishes', PRICES.snsPublish, { inTarget: false });
  add('SNS', 'HTTPS deliveries to the edge', sesEvents, 'deliveries', PRICES.snsHttpDelivery, { inTarget: false });

  const round = (x: number) => Math.round(x * 10_000) / 10_000;
  for (const i of items) i.usd = round(i.usd);
  return {
    door,
    totalPerMillion: round(items.filter((i) => i.inTarget !== false).reduce((n, i) => n + i.usd, 0)),
    outsideTargetPerMillion: round(items.filter((i) => i.inTarget === false).reduce((n, i) => n + i.usd, 0)),
    items,
    notes,
  };
}
