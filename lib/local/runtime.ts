/**
 * The whole system on one machine: embedded DynamoDB and SQS (unless endpoints are given), the same
 * edge, SES feed and consumer handlers the Lambdas run, an HTTP front in place of API Gateway, and
 * pollers in place of the SQS event sources (the events queue, and the SES feed).
 */
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { NAME_DEFAULTS, RUNTIME_VARIABLE as V } from '../../lambdas/adapters/environment.js';
import { MemoryCounters, powertoolsLog } from '../../lambdas/adapters/observability.js';
import { SqsEventQueue } from '../../lambdas/adapters/sqs-queue.js';
import { buildUnsubscribeEndpoint } from '../../lambdas/adapters/unsubscribe-wiring.js';
import { buildReputationCounter } from '../../lambdas/adapters/wiring/reputation-counter.js';
import {
  buildConsumerDeps,
  buildEdge,
  buildInbox,
  buildSesFeed,
  type Clients,
  configFromEnv,
  createClients,
  type RuntimeConfig,
} from '../../lambdas/adapters/wiring.js';
import { assertInboxOutlivesWindows } from '../../lambdas/core/inbox-retention.js';
import type { Counters } from '../../lambdas/core/pipeline/ports.js';
import { createConsumerHandler } from '../../lambdas/handlers/consumer-handler.js';
import { createEdgeHandler } from '../../lambdas/handlers/edge-handler.js';
import { createReputationCounterHandler } from '../../lambdas/handlers/reputation-counter-handler.js';
import { createSesFeedHandler } from '../../lambdas/handlers/ses-feed-handler.js';
import { QUEUE, SES_FEED } from '../definitions.js';
import { ensureQueues, ensureReputationTable, ensureTables, LOCAL_QUEUE } from './bootstrap.js';
import { applyDemoDefaults, ensureDemoCredentials } from './demo-credentials.js';
import { type Emulator, startDynamo, startedTogether, startSqs } from './emulators.js';
import { startHttpFront } from './http-front.js';
import { LocalInboxStream } from './inbox-stream.js';
import { acquireLock } from './lock.js';
import { QueuePoller } from './poller.js';
import { resendStored } from './recovery.js';
import { startLocalReputation } from './reputation.js';
import type { LocalRuntime, LocalRuntimeOptions } from './runtime-types.js';
import { assertStartable, assertStartableBeforeWriting, readPort } from './startup-checks.js';
import { StartupError } from './startup-error.js';
import { clearState, writeState } from './state.js';
import { createSuppressionTableWithSyncIndex, startLocalSync } from './sync.js';
import { localSyncTargets } from './sync-targets.js';
import { applyUnsubscribeDemoKey } from './unsubscribe-demo.js';

export type { LocalRuntime, LocalRuntimeOptions } from './runtime-types.js';

type Env = Record<string, string | undefined>;

/**
 * How long a received message stays hidden locally (the queues' own timeouts are sized for Lambda): a
 * batch takes milliseconds here, and after a kill -9 what was in flight is back within this.
 */
export const LOCAL_VISIBILITY_TIMEOUT_SECONDS = LOCAL_QUEUE.visibilityTimeoutSeconds;

export async function startLocalRuntime(options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const env: Env = { ...(options.env ?? process.env) };
  const dataDir = resolve(options.dataDir ?? env.RATCHET_DATA_DIR ?? '.data');
  // Every variable first: a bad one leaves the data directory as it was.
  const checked = await assertStartableBeforeWriting(env, dataDir, {
    port: options.port === undefined,
    syncTargets: options.syncTargets === undefined,
  });
  // Then the lock, so nothing below (demo credentials, dynalite's store) is touched by a second runtime.
  const lock = acquireLock(dataDir);
  const emulators: Emulator[] = [];
  const stops: Array<() => Promise<void>> = [];
  try {
    const demoDefaults = applyDemoDefaults(env, dataDir, ensureDemoCredentials(dataDir, checked.demoCredentials));
    const { usingDemo } = demoDefaults;
    const { settings, demoKey } = applyUnsubscribeDemoKey(demoDefaults.settings, dataDir);
    assertStartable(settings, { port: options.port === undefined });
    const requestedPort = options.port ?? readPort(env);
    // Before anything starts: a listed sync provider without its key or setting refuses the start.
    const syncTargets = options.syncTargets ?? (await localSyncTargets(settings));
    // Both at once: each loads on its own thread while the other does.
    const [dynamoEndpoint, sqsEndpoint] = await startedTogether(
      emulators,
      env[V.dynamoEndpoint] ||
        startDynamo({ path: options.persist === false ? undefined : resolve(dataDir, 'dynamodb') }),
      env[V.sqsEndpoint] || startSqs(),
    );
    const embeddedSqs = !env[V.sqsEndpoint];
    const base = configFromEnv({ ...settings, [V.dynamoEndpoint]: dynamoEndpoint, [V.sqsEndpoint]: sqsEndpoint });
    // Locally reputation is always counted (on AWS the stack sets REPUTATION_TABLE for the counter).
    const config: RuntimeConfig = {
      ...base,
      secrets: 'env',
      reputationTable: base.reputationTable ?? NAME_DEFAULTS[V.reputationTable],
    };
    try {
      assertInboxOutlivesWindows(config.settings, config.inboxTtlDays);
    } catch (error) {
      // The operator's to fix: one line, no trace.
      throw new StartupError((error as Error).message);
    }
    const clients: Clients = { ...createClients(config), ...options.clients };

    const bootstrapClient = new DynamoDBClient({
      region: config.region,
      endpoint: dynamoEndpoint,
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await createSuppressionTableWithSyncIndex(bootstrapClient, config.suppressionTable);
    await ensureTables(bootstrapClient, { inbox: config.inboxTable, suppression: config.suppressionTable });
    await ensureReputationTable(bootstrapClient, config.reputationTable!);
    bootstrapClient.destroy();
    const log = options.log ?? powertoolsLog('ratchet-local');
    const counters = new MemoryCounters();
    const sync = await startLocalSync({
      config,
      clients,
      targets: syncTargets,
      log,
      counters,
      sweepIntervalMs: options.syncSweepIntervalMs,
    });
    const sesFeedName = env[V.sesQueueName] || NAME_DEFAULTS[V.sesQueueName];
    const queues = await ensureQueues(clients.sqs, {
      events: env[V.queueName] || QUEUE.defaultName,
      sesFeed: sesFeedName,
      sesDeadLetters: env[V.sesDeadLetterQueue] || NAME_DEFAULTS[V.sesDeadLetterQueue],
    });
    config.queueUrl = queues.queueUrl;

    const common = { log, counters: counters as Counters };
    // dynalite has no streams: the inbox records what it stores on a local one, counted by the same handler.
    const stream = new LocalInboxStream({
      handler: createReputationCounterHandler(buildReputationCounter(config, clients, { log })),
      log,
    });
    const inbox = stream.wrap(buildInbox(config, clients));
    const edge = buildEdge(config, clients, { ...common, inbox, ...options.edge });
    const unsubscribe = buildUnsubscribeEndpoint(config, clients, { ...common, ...options.unsubscribe });
    const http = await startHttpFront(createEdgeHandler(edge, { unsubscribe }), { port: requestedPort }).catch(
      (error: unknown) => {
        throw portError(error, requestedPort);
      },
    );
    stops.push(() => http.close());
    lock.setPort(http.port);
    const unsubscribeBaseUrl = settings.UNSUBSCRIBE_BASE_URL || `http://localhost:${http.port}`;

    const poller = new QueuePoller({
      client: clients.sqs,
      ...queues,
      handler: createConsumerHandler(
        buildConsumerDeps(config, clients, {
          ...common,
          ...(sync ? { onSyncChange: sync.fastPath } : {}),
          ...options.consumer,
        }),
      ),
      concurrency: options.pollerConcurrency,
      maxReceiveCount: LOCAL_QUEUE.maxReceiveCount,
      retryDelaySeconds: options.retryDelaySeconds ?? LOCAL_QUEUE.retryDelaySeconds,
      visibilityTimeoutSeconds: LOCAL_VISIBILITY_TIMEOUT_SECONDS,
      region: config.region,
      onError: (error) => log.error('poller error', { error: String(error) }),
    });
    const sesFeed = new QueuePoller({
      client: clients.sqs,
      queueUrl: queues.sesQueueUrl,
      deadLetterUrl: queues.sesDeadLetterUrl,
      deadLetterArn: queues.sesDeadLetterArn,
      sourceArn: queues.sesDeadLetterArn.replace(/[^:]+$/, sesFeedName),
      handler: createSesFeedHandler(
        buildSesFeed(config, clients, {
          deadLetterQueueUrl: async () => queues.sesDeadLetterUrl,
          edge: { ...common, inbox, ...options.edge },
        }),
      ),
      batchSize: SES_FEED.batchSize,
      maxReceiveCount: SES_FEED.maxReceiveCount,
      concurrency: options.sesFeedConcurrency ?? SES_FEED.maxConcurrency,
      retryDelaySeconds: options.retryDelaySeconds,
      visibilityTimeoutSeconds: LOCAL_VISIBILITY_TIMEOUT_SECONDS,
      region: config.region,
      onError: (error) => log.error('SES feed poller error', { error: String(error) }),
    });

    if (embeddedSqs) {
      const resent = await resendStored(
        buildInbox(config, clients),
        new SqsEventQueue(clients.sqs, () => queues.queueUrl),
      );
      if (resent > 0) log.warn('re-sent stored events (the embedded queue does not survive restarts)', { resent });
    }

    // The feed first: it feeds the events queue, whose poller then finishes what it was given.
    stops.push(
      () => sesFeed.stop(),
      () => poller.stop(),
    );
    if (options.background !== false) {
      poller.start();
      sesFeed.start();
    }
    const reputation = startLocalReputation({
      config,
      clients,
      log,
      stream,
      intervalMs: options.reputationIntervalMs,
    });
    stops.push(() => reputation.stop());
    if (options.background !== false) reputation.start();
    if (sync) {
      stops.push(() => sync.stop());
      if (options.background !== false) sync.start();
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
        reputationTable: config.reputationTable,
        queueUrl: queues.queueUrl,
        deadLetterUrl: queues.deadLetterUrl,
        sesQueueUrl: queues.sesQueueUrl,
        sesDeadLetterUrl: queues.sesDeadLetterUrl,
        unsubscribeBaseUrl,
        ...(demoKey ? { unsubscribeDemoKey: demoKey } : {}),
        ...(sync
          ? {
              syncQueueUrl: sync.queueUrl,
              syncDeadLetterUrl: sync.deadLetterUrl,
              syncProviders: sync.worker.settings.providers,
            }
          : {}),
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
      sesFeed,
      sync,
      reputation,
      async stop() {
        if (stopped) return;
        stopped = true;
        await shutdown();
        clients.doc.destroy();
        clients.sqs.destroy();
        if (options.writeStateFile !== false) clearState(dataDir);
        lock.release();
      },
      abandon() {
        // Synchronous, for a process about to exit mid-stop: what it leaves behind must not block the next start.
        if (options.writeStateFile !== false) clearState(dataDir);
        lock.release();
      },
    };
  } catch (error) {
    await shutdown();
    lock.release();
    throw error;
  }

  /** Front first (no new requests), then the poller (finish in-flight batches), then the emulators. */
  async function shutdown(): Promise<void> {
    for (const stop of stops.splice(0)) await stop().catch(() => undefined);
    for (const emulator of emulators.splice(0).reverse()) await emulator.stop().catch(() => undefined);
  }
}

/** A port we cannot bind is the operator's to fix: say which and how, not EADDRINUSE with a trace. */
function portError(error: unknown, port: number): unknown {
  const code = (error as NodeJS.ErrnoException)?.code;
  if (code === 'EADDRINUSE')
    return new StartupError(
      `PORT ${port} is already in use by another program: set PORT to a free port (PORT=0 picks one)`,
    );
  if (code === 'EACCES')
    return new StartupError(`PORT ${port} needs privileges this user does not have: use a port above 1023`);
  return error;
}
