/**
 * Closed-loop load: a fixed number of operations in flight until all are done, with per-op latency.
 * The HTTP pipeline sections drive it from a separate client process (load-process.ts spawns
 * load-worker.ts), so the client does not share the runtime's event loop and core.
 */
import { Agent, request as httpRequest } from 'node:http';

export interface LoadResult {
  count: number;
  concurrency: number;
  wallMs: number;
  /** CPU time (user + system, all threads) of the process that ran the loop, during the run, ms. */
  cpuMs: number;
  /** Per-operation latency, ms, in completion order. */
  latenciesMs: number[];
  failures: number;
  /** The first few failure descriptions, for the report. */
  failureSamples: string[];
}

/** `task` resolves to true for success; a false or a throw counts as a failure (the run continues). */
export async function runClosedLoop<T>(
  items: readonly T[],
  concurrency: number,
  task: (item: T) => Promise<boolean | string>,
): Promise<LoadResult> {
  const latenciesMs: number[] = [];
  const failureSamples: string[] = [];
  let failures = 0;
  let next = 0;
  const cpuStart = process.cpuUsage();
  const start = performance.now();
  const worker = async () => {
    while (next < items.length) {
      const item = items[next++]!;
      const t0 = performance.now();
      let outcome: boolean | string;
      try {
        outcome = await task(item);
      } catch (error) {
        outcome = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      }
      latenciesMs.push(performance.now() - t0);
      if (outcome !== true) {
        failures++;
        if (failureSamples.length < 3) failureSamples.push(outcome === false ? 'failed' : outcome);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  const wallMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuStart);
  return {
    count: items.length,
    concurrency,
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    latenciesMs,
    failures,
    failureSamples,
  };
}

export interface WebhookPoster {
  /** POST a signed request to `/webhooks/<provider>`; success means HTTP 200 with the body fully read. */
  post(
    provider: string,
    request: { headers: Record<string, string>; body: string | Buffer },
  ): Promise<boolean | string>;
  close(): void;
}

/**
 * A node:http client with its own keep-alive pool, one per load run: it costs the shared CPU less than
 * `fetch` (undici's web streams), and closing it after the run means no idle socket is ever reused
 * after the server's keep-alive timeout closed it (ECONNRESET).
 */
export function createPoster(baseUrl: string, concurrency: number): WebhookPoster {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const { hostname, port } = new URL(baseUrl);
  return {
    post: (provider, request) =>
      new Promise((resolve, reject) => {
        const body = typeof request.body === 'string' ? Buffer.from(request.body, 'utf8') : request.body;
        const req = httpRequest(
          {
            host: hostname,
            port,
            path: `/webhooks/${provider}`,
            method: 'POST',
            agent,
            headers: { ...request.headers, 'content-length': String(body.length) },
          },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve(
                res.statusCode === 200
                  ? true
                  : `HTTP ${res.statusCode} ${Buffer.concat(chunks).toString('utf8').slice(0, 120)}`,
              ),
            );
            res.on('error', reject);
          },
        );
        req.on('error', reject);
        req.end(body);
      }),
    close: () => agent.destroy(),
  };
}

/** Runs `fn` with a fresh poster and always closes it. */
export async function withPoster<T>(
  baseUrl: string,
  concurrency: number,
  fn: (poster: WebhookPoster) => Promise<T>,
): Promise<T> {
  const poster = createPoster(baseUrl, concurrency);
  try {
    return await fn(poster);
  } finally {
    poster.close();
  }
}
