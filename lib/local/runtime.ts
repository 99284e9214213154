/**
 * The whole system on one machine: embedded DynamoDB and SQS (unless endpoints are given), the same
 * edge and consumer handlers the Lambdas run, an HTTP front in place of API Gateway, a poller in place
 * of the SQS event source, and the sweeper on an interval in place of the schedule.
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import type { Counters, Log } from '../../lambdas/core/pipeline/ports.js';
import type { EdgeDeps } from '../../lambdas/core/pipeline/edge.js';
import type { ConsumerDeps } from '../../lambdas/core/pipeline/consume.js';
import type { SweeperDeps } from '../../lambdas/core/pipeline/sweep.js';
import { sweepPending, type SweepResult } from '../../lambdas/core/pipeline/sweep.js';
import { MemoryCounters, powertoolsLog } from '../../lambdas/adapters/observability.js';
import {
  buildConsumerDeps,
  buildEdge,
  buildSweeperDeps,
  configFromEnv,
  createClients,
  type Clients,
  type RuntimeConfig,
} from '../../lambdas/adapters/wiring.js';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import { createConsumerHandler } from '../../lambdas/handlers/consumer-handler.js';
import { createEdgeHandler } from '../../lambdas/handlers/edge-handler.js';
import { QUEUE } from '../definitions.js';
import { ensureQueues, ensureTables, type Queues } from './bootstrap.js';
import { applyDemoDefaults, ensureDemoCredentials } from './demo-credentials.js';
import { startDynamo, startSqs, type Emulator } from './emulators.js';
import { startHttpFront } from './http-front.js';
import { applyUnsubscribeDemoKey } from './unsubscribe-demo.js';
import { buildUnsubscribeEndpoint } from '../../lambdas/adapters/unsubscribe-wiring.js';
import { QueuePoller } from './poller.js';
import { resendUnapplied } from './recovery.js';
import { clearState, writeState } from './state.js';

type Env = Record<string, string | undefined>;

export interface LocalRuntimeOptions {
  /** Defaults to process.env. */
  env?: Env;
  host?: string;
  /** 0 picks a free port. Defaults to PORT or 3000. */
  port?: number;
  /** Defaults to RATCHET_DATA_DIR or `.data`. */
  dataDir?: string;
  /** Keep dynalite's store on disk under the data dir (default true). */
  persist?: boolean;
  /** Start the background poller and sweeper (default true); tests may drive them by hand. */
  background?: boolean;
  sweepIntervalMs?: number;
  pollerConcurrency?: number;
  retryDelaySeconds?: number;
  /** Write `.data/local.json` for the CLIs (default true). */
  writeStateFile?: boolean;
  log?: Log;
  clients?: Partial<Clients>;
  edge?: Partial<EdgeDeps>;
  consumer?: Partial<ConsumerDeps>;
  sweeper?: Partial<SweeperDeps>;
}

export interface LocalRuntime {
  url: string;
  port: number;
  dataDir: string;
  config: RuntimeConfig;
  clients: Clients;
  queues: Queues;
  counters: MemoryCounters;
  /** Providers running on generated demo credentials. */
  usingDemo: string[];
  /** Where unsubscribe links point, and whether they are signed with the generated demo key. */
  unsubscribe: { baseUrl: string; usingDemoKey: boolean };
  poller: QueuePoller;
  sweepOnce(): Promise<SweepResult>;
  stop(): Promise<void>;
}

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env: Env = { ...(options.env ?? process.env) };
  const dataDir = resolve(options.dataDir ?? env.RATCHET_DATA_DIR ?? '.data');
  const emulators: Emulator[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    const dynamoEndpoint = env.DYNAMODB_ENDPOINT || (await track(startDynamo({ path: options.persist === false ? undefined : resolve(dataDir, 'dynamodb') }))).endpoint;
    const embeddedSqs = !env.SQS_ENDPOINT;
    const sqsEndpoint = env.SQS_ENDPOINT || (await track(startSqs())).endpoint;

    const demoDefaults = applyDemoDefaults(env, dataDir, ensureDemoCredentials(dataDir));
    const { usingDemo } = demoDefaults;
    const { settings, demoKey } = applyUnsubscribeDemoKey(demoDefaults.settings, dataDir);
    const base = configFromEnv({ ...settings, DYNAMODB_ENDPOINT: dynamoEndpoint, SQS_ENDPOINT: sqsEndpoint });
    const config: RuntimeConfig = { ...base, secrets: 'env' };
    const clients: Clients = { ...createClients(config), ...options.clients };

    const bootstrapClient = new DynamoDBClient({ region: config.region, endpoint: dynamoEndpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    await ensureTables(bootstrapClient, { inbox: config.inboxTable, suppression: config.suppressionTable });
    bootstrapClient.destroy();
    const queues = await ensureQueues(clients.sqs, env.QUEUE_NAME || QUEUE.defaultName);
    config.queueUrl = queues.queueUrl;

    const log = options.log ?? powertoolsLog('ratchet-local');
    const counters = new MemoryCounters();
    const common = { log, counters: counters as Counters };
    const edge = buildEdge(config, clients, { ...common, ...options.edge });
    const unsubscribe = buildUnsubscribeEndpoint(config, clients, { ...common, ...options.edge });
    const http = await startHttpFront(createEdgeHandler(edge, undefined, unsubscribe), {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? Number(env.PORT ?? 3000),
    });
    stops.push(() => http.close());
    const unsubscribeBaseUrl = settings.UNSUBSCRIBE_BASE_URL || `http://localhost:${http.port}`;

    const poller = new QueuePoller({
      client: clients.sqs,
      ...queues,
      handler: createConsumerHandler(buildConsumerDeps(config, clients, { ...common, ...options.consumer })),
      concurrency: options.pollerConcurrency,
      retryDelaySeconds: options.retryDelaySeconds,
      region: config.region,
      onError: (error) => log.error('poller error', { error: String(error) }),
    });
    const sweeperDeps = buildSweeperDeps(config, clients, { ...common, ...options.sweeper });
    const sweepOnce = () => sweepPending(sweeperDeps);

    if (embeddedSqs) {
      const resent = await resendUnapplied(clients.doc, config.inboxTable, new SqsEventQueue(clients.sqs, () => queues.queueUrl));
      if (resent > 0) log.warn('re-sent inbox rows not yet applied (the embedded queue does not survive restarts)', { resent });
    }

    let sweepTimer: NodeJS.Timeout | undefined;
    stops.push(() => poller.stop());
    if (options.background !== false) {
      poller.start();
      const interval = options.sweepIntervalMs ?? Number(env.SWEEP_INTERVAL_SECONDS ?? 60) * 1000;
      sweepTimer = setInterval(() => {
        sweepOnce().catch((error: unknown) => log.error('sweeper error', { error: String(error) }));
      }, interval);
      sweepTimer.unref();
    }

    if (options.writeStateFile !== false) {
      writeState(dataDir, {
        pid: process.pid,
        url: http.url,
        port: http.port,
        region: config.region,
        dynamoEndpoint,
        sqsEndpoint,
        inboxTable: config.inboxTable,
        suppressionTable: config.suppressionTable,
        queueUrl: queues.queueUrl,
        deadLetterUrl: queues.deadLetterUrl,
        unsubscribeBaseUrl,
        ...(demoKey ? { unsubscribeDemoKey: demoKey } : {}),
      });
    }

    let stopped = false;
    return {
      url: http.url,
      port: http.port,
      dataDir,
      config,
      clients,
      queues,
      counters,
      usingDemo,
      unsubscribe: { baseUrl: unsubscribeBaseUrl, usingDemoKey: demoKey !== undefined },
      poller,
      sweepOnce,
      async stop() {
        if (stopped) return;
        stopped = true;
        if (sweepTimer) clearInterval(sweepTimer);
        await shutdown();
        clients.doc.destroy();
        clients.sqs.destroy();
        if (options.writeStateFile !== false) clearState(dataDir);
      },
    };
  } catch (error) {
    await shutdown();
    throw error;
  }

  async function track(emulator: Promise<Emulator>): Promise<Emulator> {
    const started = await emulator;
    emulators.push(started);
    return started;
  }

  /** Front first (no new requests), then the poller (finish in-flight batches), then the emulators. */
  async function shutdown(): Promise<void> {
    for (const stop of stops.splice(0)) await stop().catch(() => undefined);
    for (const emulator of emulators.splice(0).reverse()) await emulator.stop().catch(() => undefined);
  }
}
