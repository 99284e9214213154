/**
 * The floors §3 measures the edge against, on the same emulators through the same SDK clients, in the
 * runtime process: one SQS SendMessage carrying a real queued event (the running consumer applies it
 * like the edge's), then a conditional PutItem on the inbox table, in the edge's order.
 *
 * - `bareAdmission`: called directly, no HTTP (the floor with no hop at all).
 * - `startHttpBaseline`: the same put and send behind a minimal `node:http` server on loopback, which
 *   the same client process drives the same way it drives the edge: the fair floor for an HTTP path.
 *   It reads the whole body and answers 200 with a small JSON body, and does nothing else: no routing
 *   beyond the one path, no event conversion, no verification, no compression.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MemoryCounters } from '../../lambdas/adapters/observability.js';
import { buildEdge } from '../../lambdas/adapters/wiring.js';
import type { ActionableKind } from '../../lambdas/core/event.js';
import { lowerCaseHeaders } from '../../lambdas/core/request.js';
import { INBOX_TABLE } from '../../lib/definitions.js';
import type { SignedDemoRequest } from '../../lib/demo/types.js';
import { type LoadResult, runClosedLoop } from './load.js';
import type { LoadProcess, RemoteLoadResult, StagedBatch } from './load-process.js';
import { type BenchStack, SILENT_LOG } from './local-stack.js';

/** Bare-path item and message sizes: about what an edge row (compressed events + raw, ~0.9 KB) and a queued event weigh. */
export const BARE_ITEM_PAYLOAD_BYTES = 800;
export const BARE_MESSAGE_BYTES = 512;
const KINDS: readonly ActionableKind[] = ['delivered', 'hard_bounce', 'soft_bounce', 'complaint', 'unsubscribe'];

export function bareAdmission(stack: BenchStack): () => Promise<boolean> {
  const { doc, sqs } = stack.clients;
  const table = stack.config.inboxTable;
  const queueUrl = stack.queues.queueUrl;
  const payload = randomBytes((BARE_ITEM_PAYLOAD_BYTES * 3) / 4).toString('base64');
  let serial = 0;
  return async () => {
    const id = randomUUID();
    const pk = `bare#${id}`;
    const nowMs = Date.now();
    const kind = KINDS[serial++ % KINDS.length]!;
    // A real queued event, sized like the edge's message, so the running consumer does the same work for it.
    const event = {
      provider: 'bare',
      eventId: id,
      recipient: `b${serial}@bench.example.com`,
      kind,
      occurredAt: nowMs,
      detail: { providerEventType: 'x'.repeat(BARE_MESSAGE_BYTES - 200) },
    };
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ pk, event }) }));
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: { pk, status: 'queued', expiresAt: Math.floor(nowMs / 1000) + 86_400, body: payload },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': INBOX_TABLE.partitionKey },
      }),
    );
    return true;
  };
}

export interface HttpBaseline {
  /** Base URL; the load client posts to `${url}/webhooks/<provider>`. */
  url: string;
  close(): Promise<void>;
}

/** The same put and send behind `node:http` on a random loopback port. */
export async function startHttpBaseline(stack: BenchStack): Promise<HttpBaseline> {
  const admit = bareAdmission(stack);
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const ok = req.method === 'POST' && req.url?.startsWith('/webhooks/') && Buffer.concat(chunks).length > 0;
      if (!ok) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end('{"error":"bad_request"}');
        return;
      }
      admit().then(
        () => {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end('{"ok":true}');
        },
        () => {
          res.writeHead(500, { 'content-type': 'application/json' });
          res.end('{"error":"internal_error"}');
        },
      );
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface AdmissionPaths {
  /** Hands signed requests to the client process (untimed). */
  stageEdge(requests: readonly SignedDemoRequest[]): Promise<StagedBatch>;
  edge(batch: StagedBatch): Promise<RemoteLoadResult>;
  inProcess(requests: readonly SignedDemoRequest[]): Promise<LoadResult>;
  bare(count: number): Promise<LoadResult>;
  httpBare(batch: StagedBatch): Promise<RemoteLoadResult>;
}

/** The four paths §3 times: the edge over HTTP and in process, the bare floor, the HTTP baseline. */
export function admissionPaths(
  stack: BenchStack,
  client: LoadProcess,
  baseline: HttpBaseline,
  concurrency: number,
): AdmissionPaths {
  const inProcessEdge = buildEdge(stack.config, stack.clients, { log: SILENT_LOG, counters: new MemoryCounters() });
  const bareOnce = bareAdmission(stack);
  return {
    stageEdge: (requests) => client.stage('ses', requests),
    edge: (batch) => client.run(stack.url, batch, concurrency),
    httpBare: (batch) => client.run(baseline.url, batch, concurrency),
    inProcess: (requests) =>
      runClosedLoop(requests, concurrency, async (request) => {
        const response = await inProcessEdge.receive('ses', {
          body: Buffer.from(request.body, 'utf8'),
          headers: lowerCaseHeaders(request.headers),
          sourceIp: '127.0.0.1',
        });
        return response.status === 200 ? true : `status ${response.status} ${JSON.stringify(response.body)}`;
      }),
    bare: (count) =>
      runClosedLoop(
        Array.from({ length: count }, (_, i) => i),
        concurrency,
        bareOnce,
      ),
  };
}
