/**
 * Measures what the cost model multiplies: inbox item sizes (real rows written on dynalite by the real
 * edge, sized by DynamoDB's rules), suppression item sizes, handler durations and log bytes per
 * invocation (the real Powertools logger and EMF metrics, captured from stdout), on the local stack
 * that `npm run bench` uses: the edge over HTTPS, the SES feed's own handler on SQS batches, the
 * consumer. Payloads: AWS's published SES examples (bench/fixtures/ses) in a signed SNS envelope, and
 * SendGrid batches of 50.
 */

import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants, deflateRawSync, gzipSync } from 'node:zlib';
import { type Message, ReceiveMessageCommand } from '@aws-sdk/client-sqs';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { SQSEvent } from 'aws-lambda';
import { type StoredRow, storedRowAttributes } from '../lambdas/adapters/dynamodb-inbox.js';
import { itemSize } from '../lambdas/adapters/dynamodb-item-size.js';
import { encodePayload } from '../lambdas/adapters/inbox-codec.js';
import { packBody } from '../lambdas/adapters/inbox-packing.js';
import { readInboxRow } from '../lambdas/adapters/inbox-schema.js';
import { powertoolsCounters, powertoolsLog } from '../lambdas/adapters/observability.js';
import { buildConsumerDeps, buildEdge, buildSesFeed } from '../lambdas/adapters/wiring.js';
import type { ActionableKind } from '../lambdas/core/event.js';
import { createConsumerHandler } from '../lambdas/handlers/consumer-handler.js';
import { createEdgeHandler } from '../lambdas/handlers/edge-handler.js';
import { createSesFeedHandler } from '../lambdas/handlers/ses-feed-handler.js';
import { sampleSendgridEvent, sendgridBatchBody, signSendgridBody } from '../lib/demo/sendgrid.js';
import { demoSigningCertUrl, signSnsMessage } from '../lib/demo/ses.js';
import { ensureDemoCredentials } from '../lib/local/demo-credentials.js';
import { startLocalRuntime } from '../lib/local/runtime.js';
import { type CountingMeasured, measureCounting } from './reputation.js';

/** The issue's event mix; topic opt-ins are not part of it. */
export type MixKind = Exclude<ActionableKind, 'subscribe'>;
export const MIX: Readonly<Record<MixKind, number>> = {
  delivered: 0.9,
  soft_bounce: 0.05,
  hard_bounce: 0.03,
  complaint: 0.01,
  unsubscribe: 0.01,
};
export const KINDS = Object.keys(MIX) as MixKind[];

const FIXTURES = resolve(import.meta.dirname, '..', 'bench', 'fixtures', 'ses');
/** AWS's example per kind; the soft bounce is the bounce example with `Transient` (same length) for `Permanent`. */
function sesExample(kind: MixKind): string {
  const file = {
    delivered: 'delivery',
    soft_bounce: 'bounce',
    hard_bounce: 'bounce',
    complaint: 'complaint',
    unsubscribe: 'subscription',
  }[kind];
  const text = readFileSync(join(FIXTURES, `event-${file}.json`), 'utf8');
  return kind === 'soft_bounce' ? text.replace('"Permanent"', '"Transient"') : text;
}

/** SNS's own layout ("Key" : value, two-space indent), as in the SNS developer guide's examples. */
function snsLayout(message: Record<string, string>): string {
  return `{\n${Object.entries(message)
    .map(([k, v]) => `  ${JSON.stringify(k)} : ${JSON.stringify(v)}`)
    .join(',\n')}\n}`;
}

export interface Measured {
  /** The reputation counter (the inbox stream's consumer) on batches of the mapping's size. */
  counting: CountingMeasured;
  /** Per provider and kind: inbox item bytes (DynamoDB rules), median over the rows written. */
  inboxItemBytes: Record<'ses' | 'sendgrid', Record<ActionableKind, number>>;
  /** Suppression item bytes after the consumer wrote it (median). */
  suppressionItemBytes: number;
  /** Handler wall time, median ms: one SES request; one SendGrid batch of 50; one consumer batch of `consumerBatch`. */
  edgeSesMs: number;
  edgeSendgridBatchMs: number;
  consumerBatchMs: number;
  consumerBatch: number;
  /** stdout bytes (JSON log lines + EMF) per invocation, and lines per invocation. */
  edgeLogBytes: number;
  edgeLogLines: number;
  consumerLogBytes: number;
  consumerLogLines: number;
  /**
   * The SES feed's own handler (buildSesFeed + createSesFeedHandler, as the Lambda builds it) on SQS
   * events of `feedBatch` signed SES envelopes: median ms and stdout bytes/lines per batch.
   */
  feedBatchMs: number;
  feedBatch: number;
  feedLogBytes: number;
  feedLogLines: number;
  /** Median bytes of an SES envelope as SNS delivers it to SQS (raw delivery off), and of an event-queue message. */
  sesEnvelopeBytes: number;
  eventMessageBytes: number;
  /** gzip ratio of the captured log text (CloudWatch stores logs compressed). */
  logCompression: number;
  /** The codec comparison, per SES example and for a SendGrid event: raw and compressed sizes. */
  codecs: Array<{
    payload: string;
    raw: number;
    gzip: number;
    deflate: number;
    deflateDictionary: number;
    /** Inbox schema version 2's packing (inbox-packing.ts), events left out: what the row stores today. */
    packed: number;
    brotli: number;
  }>;
  requests: { ses: number; sendgridBatches: number; events: number };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

export async function measure(options: {
  consumerBatch: number;
  feedBatch?: number;
  sesPerKind?: number;
  sendgridBatches?: number;
  feedBatches?: number;
}): Promise<Measured> {
  const sesPerKind = options.sesPerKind ?? 20;
  const feedBatch = options.feedBatch ?? 10;
  const feedBatches = options.feedBatches ?? 10;
  const sendgridBatches = options.sendgridBatches ?? 10;
  const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-cost-'));
  process.env.POWERTOOLS_METRICS_DISABLED = 'false';
  const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };
  const runtime = await startLocalRuntime({
    port: 0,
    persist: false,
    background: false,
    writeStateFile: false,
    dataDir,
    log: silent,
    env: { ...process.env, LOG_LEVEL: 'INFO' },
  });
  const capture = captureStdout();
  try {
    const demo = ensureDemoCredentials(dataDir);
    const edge = createEdgeHandler(
      buildEdge(runtime.config, runtime.clients, {
        log: powertoolsLog('ratchet-edge', 'INFO'),
        counters: powertoolsCounters('ratchet-edge', 'Ratchet'),
      }),
    );
    const invokeEdge = async (provider: string, headers: Record<string, string>, body: string) => {
      const start = performance.now();
      const response = await edge({
        body,
        isBase64Encoded: false,
        headers,
        pathParameters: { provider },
        requestContext: { http: { sourceIp: '203.0.113.9' } },
      } as never);
      const ms = performance.now() - start;
      if (response.statusCode !== 200)
        throw new Error(`${provider}: edge answered ${response.statusCode} ${response.body}`);
      return ms;
    };

    // SES: each kind in turn, interleaved, `sesPerKind` times, after two untimed warm-ups.
    const ses = demo.ses!;
    const signSes = (kind: MixKind) => {
      const topicArn = ses.credential;
      const certUrl = demoSigningCertUrl(topicArn, ses.pinnedCertificate!.fileName);
      const message = signSnsMessage(
        {
          Type: 'Notification',
          MessageId: randomUUID(),
          TopicArn: topicArn,
          Message: sesExample(kind),
          Timestamp: new Date().toISOString(),
          SigningCertURL: certUrl,
          UnsubscribeURL: `${new URL(certUrl).origin}/?Action=Unsubscribe&SubscriptionArn=${topicArn}:${randomUUID()}`,
        },
        ses.signingSecret,
        '1',
      );
      return {
        headers: { 'content-type': 'text/plain; charset=UTF-8', 'x-amz-sns-message-type': 'Notification' },
        body: snsLayout(message),
      };
    };
    const sesBodies: Record<string, string> = {};
    for (const kind of KINDS) sesBodies[kind] = signSes(kind).body;
    for (let i = 0; i < 2; i++) await invokeEdge('ses', signSes('delivered').headers, signSes('delivered').body);
    const sesMs: number[] = [];
    const edgeLog: number[] = [];
    const edgeLines: number[] = [];
    for (let round = 0; round < sesPerKind; round++) {
      for (const kind of KINDS) {
        const signed = signSes(kind);
        capture.reset();
        sesMs.push(await invokeEdge('ses', signed.headers, signed.body));
        edgeLog.push(capture.bytes());
        edgeLines.push(capture.lines());
      }
    }

    // The SES feed: its real handler on SQS events of `feedBatch` envelopes, each body the signed
    // envelope as SNS puts it on the queue (raw delivery off), the kinds interleaved, after two untimed
    // warm-up batches. Its log lines say ratchet-ses-feed; its counters are the edge's, one EMF record
    // per batch, as buildSesFeed wires them in the Lambda.
    const feed = createSesFeedHandler(
      buildSesFeed(runtime.config, runtime.clients, {
        deadLetterQueueUrl: runtime.queues.sesDeadLetterUrl,
        edge: {
          log: powertoolsLog('ratchet-ses-feed', 'INFO'),
          counters: powertoolsCounters('ratchet-edge', 'Ratchet'),
        },
      }),
    );
    const feedEvent = (b: number): SQSEvent => ({
      Records: Array.from({ length: feedBatch }, (_, i) => {
        const body = signSes(KINDS[(b * feedBatch + i) % KINDS.length]!).body;
        return { messageId: randomUUID(), receiptHandle: randomUUID(), body } as never;
      }),
    });
    const invokeFeed = async (event: SQSEvent) => {
      const start = performance.now();
      const response = await feed(event);
      const ms = performance.now() - start;
      if (response.batchItemFailures.length > 0)
        throw new Error(`SES feed reported ${response.batchItemFailures.length} failures in a batch of ${feedBatch}`);
      return ms;
    };
    for (let w = 0; w < 2; w++) await invokeFeed(feedEvent(w));
    const feedMs: number[] = [];
    const feedLog: number[] = [];
    const feedLines: number[] = [];
    for (let b = 0; b < feedBatches; b++) {
      const event = feedEvent(b);
      capture.reset();
      feedMs.push(await invokeFeed(event));
      feedLog.push(capture.bytes());
      feedLines.push(capture.lines());
    }
    const deadLettered = await runtime.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: runtime.queues.sesDeadLetterUrl,
        MaxNumberOfMessages: 1,
        WaitTimeSeconds: 0,
      }),
    );
    if (deadLettered.Messages?.length) throw new Error('the SES feed dead-lettered a measured envelope');

    // SendGrid: batches of 50 in the mix (90 delivered, 5 soft, 3 hard, 1 complaint, 1 unsubscribe per 100).
    const sg = demo.sendgrid!;
    const sgKinds = KINDS.flatMap((kind) => Array<ActionableKind>(Math.round(MIX[kind] * 100)).fill(kind));
    const sgMs: number[] = [];
    const sgEventRaw: string[] = [];
    for (let b = 0; b < sendgridBatches; b++) {
      const events = Array.from({ length: 50 }, (_, i) => {
        const kind = sgKinds[((b % 2) * 50 + i * 37) % 100]!;
        return sampleSendgridEvent(kind, `sg-${b}-${i}@example.com`, Date.now());
      });
      const body = sendgridBatchBody(events);
      sgEventRaw.push(JSON.stringify(events[0]));
      const headers = signSendgridBody(body, String(Math.floor(Date.now() / 1000)), sg.signingSecret);
      capture.reset();
      sgMs.push(await invokeEdge('sendgrid', headers, body));
      edgeLog.push(capture.bytes());
      edgeLines.push(capture.lines());
    }

    // Inbox rows, sized.
    const rows = await scanAll(runtime.clients.doc, runtime.config.inboxTable);
    const sizes: Record<string, number[]> = {};
    for (const item of rows) {
      const row = readInboxRow(item);
      if (!row || !(item.body instanceof Uint8Array)) continue;
      const key = `${row.events[0]!.provider}:${row.events[0]!.kind}`;
      (sizes[key] ??= []).push(itemSize(storedRowAttributes(item as unknown as StoredRow)));
    }
    const counting = await measureCounting(runtime, rows, capture, (table) => scanAll(runtime.clients.doc, table));
    const inboxItemBytes = { ses: {}, sendgrid: {} } as Measured['inboxItemBytes'];
    for (const provider of ['ses', 'sendgrid'] as const) {
      for (const kind of KINDS) {
        const measured = sizes[`${provider}:${kind}`];
        if (!measured?.length) throw new Error(`no ${provider} ${kind} row was written`);
        inboxItemBytes[provider][kind] = median(measured);
      }
    }

    // Consumer: every queued message, in batches of the template's batch size, each to its own address
    // (the SES examples all name recipient@example.com; a real stream names many addresses).
    const consumer = createConsumerHandler(
      buildConsumerDeps(runtime.config, runtime.clients, {
        log: powertoolsLog('ratchet-consumer', 'INFO'),
        counters: powertoolsCounters('ratchet-consumer', 'Ratchet'),
      }),
    );
    const messages = await receiveAll(runtime);
    const eventMessageBytes = median(messages.map((m) => Buffer.byteLength(m.Body ?? '')));
    const consumerMs: number[] = [];
    const consumerLog: number[] = [];
    const consumerLines: number[] = [];
    for (let i = 0; i + options.consumerBatch <= messages.length; i += options.consumerBatch) {
      const batch = messages.slice(i, i + options.consumerBatch);
      const event: SQSEvent = {
        Records: batch.map((m, j) => {
          const body = JSON.parse(m.Body!);
          body.event.recipient = `c${i + j}@example.com`;
          return { messageId: m.MessageId!, receiptHandle: m.ReceiptHandle!, body: JSON.stringify(body) } as never;
        }),
      };
      capture.reset();
      const start = performance.now();
      const response = await consumer(event);
      consumerMs.push(performance.now() - start);
      consumerLog.push(capture.bytes());
      consumerLines.push(capture.lines());
      if (response.batchItemFailures.length > 0) throw new Error('consumer batch had failures');
    }
    if (consumerMs.length === 0)
      throw new Error(`only ${messages.length} messages: fewer than one consumer batch of ${options.consumerBatch}`);
    const records = await scanAll(runtime.clients.doc, runtime.config.suppressionTable);
    const recordSizes = records.map((r) => itemSize(marshallPlain(r)));

    const logText = capture.text();
    const codecs = [
      ...KINDS.filter((k) => k !== 'soft_bounce').map((kind) =>
        codecRow(`SES ${kind} (AWS example in an SNS envelope)`, sesBodies[kind]!),
      ),
      codecRow('SendGrid delivered event (one element of a batch)', sgEventRaw[0]!),
    ];
    return {
      counting,
      inboxItemBytes,
      suppressionItemBytes: median(recordSizes),
      edgeSesMs: median(sesMs),
      edgeSendgridBatchMs: median(sgMs),
      consumerBatchMs: median(consumerMs),
      consumerBatch: options.consumerBatch,
      edgeLogBytes: median(edgeLog),
      edgeLogLines: median(edgeLines),
      consumerLogBytes: median(consumerLog),
      consumerLogLines: median(consumerLines),
      feedBatchMs: median(feedMs),
      feedBatch,
      feedLogBytes: median(feedLog),
      feedLogLines: median(feedLines),
      sesEnvelopeBytes: median(Object.values(sesBodies).map((b) => Buffer.byteLength(b))),
      eventMessageBytes,
      logCompression: gzipSync(logText).length / Math.max(1, Buffer.byteLength(logText)),
      codecs,
      requests: { ses: sesMs.length, sendgridBatches, events: messages.length },
    };
  } finally {
    capture.restore();
    await runtime.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

function codecRow(payload: string, raw: string): Measured['codecs'][number] {
  const text = Buffer.from(raw, 'utf8');
  return {
    payload,
    raw: text.length,
    gzip: gzipSync(text, { level: 9 }).length,
    deflate: deflateRawSync(text, { level: 9 }).length,
    deflateDictionary: encodePayload([], raw, 1).length,
    packed: packBody([], raw, 'ses#x').length,
    brotli: brotliCompressSync(text, {
      params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_MODE]: constants.BROTLI_MODE_TEXT },
    }).length,
  };
}

async function receiveAll(runtime: Awaited<ReturnType<typeof startLocalRuntime>>): Promise<Message[]> {
  const out: Message[] = [];
  for (;;) {
    const page = await runtime.clients.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: runtime.queues.queueUrl,
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 0,
        VisibilityTimeout: 600,
      }),
    );
    if (!page.Messages?.length) return out;
    out.push(...page.Messages);
  }
}

async function scanAll(
  doc: Awaited<ReturnType<typeof startLocalRuntime>>['clients']['doc'],
  table: string,
): Promise<Record<string, any>[]> {
  const items: Record<string, any>[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await doc.send(new ScanCommand({ TableName: table, ExclusiveStartKey: start }));
    items.push(...(page.Items ?? []));
    start = page.LastEvaluatedKey;
  } while (start);
  return items;
}

/** A DocumentClient item back to AttributeValues, for sizing (numbers, strings, booleans, maps, lists). */
function marshallPlain(value: Record<string, unknown>): Record<string, any> {
  const one = (v: unknown): any => {
    if (typeof v === 'string') return { S: v };
    if (typeof v === 'number') return { N: String(v) };
    if (typeof v === 'boolean') return { BOOL: v };
    if (v === null) return { NULL: true };
    if (v instanceof Uint8Array) return { B: v };
    if (Array.isArray(v)) return { L: v.map(one) };
    if (v instanceof Set) return { SS: [...v].map(String) };
    return { M: marshallPlain(v as Record<string, unknown>) };
  };
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, one(v)]));
}

/** Counts what handlers print (Powertools writes JSON lines to stdout) without letting it through. */
function captureStdout() {
  const original = process.stdout.write.bind(process.stdout);
  let chunks: string[] = [];
  let all = '';
  process.stdout.write = ((chunk: string | Uint8Array) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
    chunks.push(text);
    all += text;
    return true;
  }) as typeof process.stdout.write;
  return {
    reset: () => void (chunks = []),
    bytes: () => chunks.reduce((n, c) => n + Buffer.byteLength(c), 0),
    lines: () =>
      chunks
        .join('')
        .split('\n')
        .filter((l) => l.trim() !== '').length,
    text: () => all,
    restore: () => void (process.stdout.write = original),
  };
}
