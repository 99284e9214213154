/**
 * §3 Edge admission throughput on the local stack: demo-signed SES notifications (SNS v2, unique
 * MessageIds) POSTed over HTTP at a fixed concurrency with the poller off, next to the bare path on
 * the same emulators through the same runtime's SDK clients: a conditional PutItem on the inbox table
 * plus one SQS SendMessage. A third, informational path calls the same edge in-process (no HTTP) to
 * show what the HTTP hop costs. Run as halves in mirrored order (A B C C B A) so a slow drift (the
 * emulators' stores growing, a neighbour's burst) falls on every path alike.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { MemoryCounters } from '../lambdas/adapters/observability.js';
import { buildEdge } from '../lambdas/adapters/wiring.js';
import type { ActionableKind } from '../lambdas/core/event.js';
import { lowerCaseHeaders } from '../lambdas/core/request.js';
import { INBOX_TABLE } from '../lib/definitions.js';
import { sesDemo } from '../lib/demo/ses.js';
import type { SignedDemoRequest } from '../lib/demo/types.js';
import { runClosedLoop, withPoster, type LoadResult } from './lib/load.js';
import { SILENT_LOG, withBenchStack, type BenchStack } from './lib/local-stack.js';
import { profileShares, profileTable } from './lib/profile.js';
import { fmt, fmtRatio, median, percentile } from './lib/stats.js';
import type { SectionResult } from './lib/types.js';

const CONCURRENCY = 16;
const TARGET_RATIO = 0.5;
/** The first few hundred requests run cold (JIT, connection pools): warm every path, several times. */
const WARMUP_ROUNDS = 3;
const WARMUP_REQUESTS = 300;
/** Aim for about this long for the HTTP edge, from the last warm-up round's rate, within [MIN, MAX]. */
const TARGET_EDGE_SECONDS = 12;
const MIN_REQUESTS = 1000;
const MAX_REQUESTS = 5000;
const KINDS: readonly ActionableKind[] = ['delivered', 'hard_bounce', 'soft_bounce', 'complaint', 'unsubscribe'];
/** Bare-path item and message sizes: about what an edge row (gzip'd raw + normalized event) and a queued event weigh. */
const BARE_ITEM_PAYLOAD_BYTES = 1024;
const BARE_MESSAGE_BYTES = 512;
/** An extra, untimed HTTP-edge run under the CPU profiler, to say where the time goes. */
const PROFILED_REQUESTS = 600;

type Path = 'edge' | 'inProcess' | 'bare';

export interface EdgeAdmissionOptions {
  log?: (line: string) => void;
}

export async function benchEdgeAdmission(options: EdgeAdmissionOptions = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  return withBenchStack(async (stack) => {
    const signing = { ms: 0, count: 0 };
    let serial = 0;
    const sign = (count: number): SignedDemoRequest[] => {
      const t0 = performance.now();
      const out = Array.from({ length: count }, (_, i) =>
        sesDemo.sign(KINDS[i % KINDS.length]!, `r${serial++}@bench.example.com`, stack.demo.ses!, Date.now()),
      );
      signing.ms += performance.now() - t0;
      signing.count += count;
      return out;
    };
    const paths = admissionPaths(stack);

    let warmRate = 0;
    for (let round = 0; round < WARMUP_ROUNDS; round++) {
      const warm = await paths.edge(sign(WARMUP_REQUESTS));
      await paths.inProcess(sign(WARMUP_REQUESTS));
      await paths.bare(WARMUP_REQUESTS);
      assertClean('edge warm-up', warm);
      warmRate = warm.count / (warm.wallMs / 1000);
    }
    const total = 2 * Math.round(clamp(warmRate * TARGET_EDGE_SECONDS, MIN_REQUESTS, MAX_REQUESTS) / 2);
    const half = total / 2;
    log(`  edge warm: ${fmt(warmRate)} req/s → ${total} requests per path; signing…`);

    const edgeRequests = [sign(half), sign(half)];
    const inProcessRequests = [sign(half), sign(half)];
    const profiledRequests = sign(PROFILED_REQUESTS);
    log(`  signed ${signing.count} SNS messages in ${fmt(signing.ms / 1000)} s (untimed); running A B C C B A…`);
    const runs: Record<Path, LoadResult[]> = { edge: [], inProcess: [], bare: [] };
    runs.edge.push(await paths.edge(edgeRequests[0]!));
    runs.inProcess.push(await paths.inProcess(inProcessRequests[0]!));
    runs.bare.push(await paths.bare(half));
    runs.bare.push(await paths.bare(half));
    runs.inProcess.push(await paths.inProcess(inProcessRequests[1]!));
    runs.edge.push(await paths.edge(edgeRequests[1]!));

    const profiled = await profileShares(() => paths.edge(profiledRequests));
    assertClean('profiled edge run', profiled.value);

    const edge = combine(runs.edge);
    const inProcess = combine(runs.inProcess);
    const bare = combine(runs.bare);
    for (const [what, run] of [['edge', edge], ['in-process edge', inProcess], ['bare', bare]] as const) assertClean(what, run);
    const rate = (run: LoadResult) => run.count / (run.wallMs / 1000);
    const ratio = rate(edge) / rate(bare);
    const meets = ratio >= TARGET_RATIO;
    const depth = await stack.queueDepth();
    const expectedMessages = 3 * (total + WARMUP_ROUNDS * WARMUP_REQUESTS) + PROFILED_REQUESTS;
    const row = (label: string, run: LoadResult) => [
      label,
      String(run.count),
      fmt(rate(run)),
      fmt(median(run.latenciesMs)),
      fmt(percentile(run.latenciesMs, 99)),
      fmt(run.cpuMs / run.count),
      fmtRatio(rate(run) / rate(bare)),
    ];

    return {
      id: 'edge',
      title: '3. Edge admission throughput (local stack)',
      method: [
        `**edge (HTTP)** = SES notifications (SNS SignatureVersion 2, demo-signed with the runtime's demo certificate, unique MessageIds, the five actionable kinds in turn) POSTed to \`/webhooks/ses\` on the local runtime's HTTP front, ${CONCURRENCY} in flight, poller off. Per request: HTTP → API Gateway v2 event (base64 body) → SNS checks + RSA verify → inbox conditional PutItem → SQS SendMessageBatch (one entry) → UpdateItem (mark enqueued) → 200.`,
        `**edge (in-process)** = the same edge (\`buildEdge\` on the runtime's config and SDK clients) called as \`edge.receive('ses', request)\`, no HTTP: informational, it shows what the HTTP hop costs here.`,
        `**bare** = the floor on the same emulators through the same SDK clients: a conditional \`PutCommand\` (\`attribute_not_exists(pk)\`) of an item with a ${BARE_ITEM_PAYLOAD_BYTES}-byte payload on the inbox table, then one SQS \`SendMessage\` of ~${BARE_MESSAGE_BYTES} bytes; ${CONCURRENCY} in flight. No HTTP, no verification, no third write.`,
        `${total} operations per path, sized so the HTTP edge takes about ${TARGET_EDGE_SECONDS} s at the rate of the last of ${WARMUP_ROUNDS} warm-up rounds (${WARMUP_REQUESTS} per path each; the first round runs cold). Each path runs as two halves in the order edge, in-process, bare, bare, in-process, edge; requests/s = count / summed wall time; latency is per request, client side (p99 nearest rank). Signing happens before timing. The HTTP client is node:http with a keep-alive pool of ${CONCURRENCY} sockets.`,
        '**CPU ms/request** = whole-process CPU time (user + system, all threads) per request: the client, the HTTP front, the edge, dynalite and fauxqs all share one Node process on a 2-core machine, so the load is CPU-bound and this is where the time goes. Absolute numbers say little about Lambda + DynamoDB + SQS; the ratio is the point.',
      ],
      tables: [
        {
          columns: ['path', 'requests', 'requests/s', 'p50 ms', 'p99 ms', 'CPU ms/request', '÷ bare'],
          rows: [
            row('edge (HTTP, SES v2)', edge),
            row('edge (in-process, informational)', inProcess),
            row('bare (PutItem + SendMessage)', bare),
          ],
        },
        {
          columns: ['edge (HTTP) / bare throughput', 'target', 'verdict'],
          rows: [[fmtRatio(ratio), `≥ ${fmtRatio(TARGET_RATIO)}`, meets ? 'meets' : 'misses']],
        },
        profileTable(
          `Where the CPU goes on the HTTP edge path: a separate, untimed run of ${PROFILED_REQUESTS} requests under the V8 sampling profiler. Each sample counts for the innermost frame outside Node core, so crypto and zlib calls count for their caller.`,
          profiled.shares,
        ),
      ],
      verdicts: [
        { subject: 'Edge admission throughput / bare PutItem+SendMessage', target: `≥ ${fmtRatio(TARGET_RATIO)}`, measured: fmtRatio(ratio), meets },
      ],
      notes: [
        `The edge makes three emulator round trips per event (PutItem, SendMessageBatch, UpdateItem to mark the row enqueued) where the bare path makes two, so even with free HTTP and free verification its ceiling here is about 2/3 of bare.`,
        `Queue after the run: ${depth.visible} messages visible (expected ${expectedMessages}: every admitted event and every bare message, warm-up and profiled runs included), ${depth.dlq} in the DLQ.`,
      ],
      wallMs: performance.now() - started,
    };
  });
}

function admissionPaths(stack: BenchStack): Record<'edge' | 'inProcess', (requests: readonly SignedDemoRequest[]) => Promise<LoadResult>> & {
  bare: (count: number) => Promise<LoadResult>;
} {
  const { runtime } = stack;
  const inProcessEdge = buildEdge(runtime.config, runtime.clients, { log: SILENT_LOG, counters: new MemoryCounters() });
  const bareOnce = bareAdmission(stack);
  return {
    edge: (requests) =>
      withPoster(runtime.url, CONCURRENCY, (poster) => runClosedLoop(requests, CONCURRENCY, (request) => poster.post('ses', request))),
    inProcess: (requests) =>
      runClosedLoop(requests, CONCURRENCY, async (request) => {
        const response = await inProcessEdge.receive('ses', {
          body: Buffer.from(request.body, 'utf8'),
          headers: lowerCaseHeaders(request.headers),
          sourceIp: '127.0.0.1',
        });
        return response.status === 200 ? true : `status ${response.status} ${JSON.stringify(response.body)}`;
      }),
    bare: (count) => runClosedLoop(Array.from({ length: count }, (_, i) => i), CONCURRENCY, bareOnce),
  };
}

function bareAdmission(stack: BenchStack): () => Promise<boolean> {
  const { doc, sqs } = stack.runtime.clients;
  const table = stack.runtime.config.inboxTable;
  const queueUrl = stack.runtime.queues.queueUrl;
  const payload = randomBytes((BARE_ITEM_PAYLOAD_BYTES * 3) / 4).toString('base64');
  const messagePad = 'x'.repeat(BARE_MESSAGE_BYTES - 60);
  return async () => {
    const pk = `bare#${randomUUID()}`;
    const nowMs = Date.now();
    await doc.send(
      new PutCommand({
        TableName: table,
        Item: { pk, provider: 'bare', status: 'pending', receivedAt: nowMs, expiresAt: Math.floor(nowMs / 1000) + 86_400, payload },
        ConditionExpression: 'attribute_not_exists(#pk)',
        ExpressionAttributeNames: { '#pk': INBOX_TABLE.partitionKey },
      }),
    );
    await sqs.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify({ pk, pad: messagePad }) }));
    return true;
  };
}

function combine(runs: readonly LoadResult[]): LoadResult {
  return {
    count: runs.reduce((n, r) => n + r.count, 0),
    concurrency: runs[0]!.concurrency,
    wallMs: runs.reduce((n, r) => n + r.wallMs, 0),
    cpuMs: runs.reduce((n, r) => n + r.cpuMs, 0),
    latenciesMs: runs.flatMap((r) => r.latenciesMs),
    failures: runs.reduce((n, r) => n + r.failures, 0),
    failureSamples: runs.flatMap((r) => r.failureSamples).slice(0, 3),
  };
}

function assertClean(what: string, result: LoadResult): void {
  if (result.failures > 0) {
    throw new Error(`${what}: ${result.failures}/${result.count} requests failed, e.g. ${result.failureSamples.join('; ')}`);
  }
}

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}
