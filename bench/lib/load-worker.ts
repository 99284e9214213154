/**
 * The HTTP load client, run as its own Node process (forked by load-process.ts, under tsx), so the
 * requests reach the local runtime over loopback from another process, as API Gateway's clients reach
 * a server: the client neither shares the runtime's event loop nor competes with it for one core.
 *
 * Protocol over the IPC channel (JSON): the parent stages signed requests ahead of time (`stage`,
 * untimed; bodies are encoded to bytes here, before any timing), then asks for a closed-loop run over
 * them (`run`), which answers with the LoadResult measured here: wall time, per-request latency and
 * this process's CPU time. The run's staged requests are dropped once it is done.
 */
import { createPoster, runClosedLoop } from './load.js';
import type { LoadRequest, LoadWorkerReply, LoadWorkerRequest } from './load-process.js';

if (!process.send) throw new Error('load-worker.ts must be started with an IPC channel (child_process.fork)');

const staged = new Map<
  number,
  { provider: string; requests: Array<{ headers: Record<string, string>; body: Buffer }> }
>();

function reply(message: LoadWorkerReply): void {
  process.send!(message);
}

async function handle(message: LoadWorkerRequest): Promise<void> {
  switch (message.type) {
    case 'stage': {
      const requests = message.requests.map((r: LoadRequest) => ({
        headers: r.headers,
        body: Buffer.from(r.body, 'utf8'),
      }));
      staged.set(message.batch, { provider: message.provider, requests });
      reply({ type: 'staged', id: message.id });
      return;
    }
    case 'run': {
      const batch = staged.get(message.batch);
      if (!batch) throw new Error(`no staged batch ${message.batch}`);
      staged.delete(message.batch);
      const poster = createPoster(message.url, message.concurrency);
      try {
        const result = await runClosedLoop(batch.requests, message.concurrency, (request) =>
          poster.post(batch.provider, request),
        );
        reply({ type: 'done', id: message.id, result });
      } finally {
        poster.close();
      }
      return;
    }
  }
}

process.on('message', (message: LoadWorkerRequest) => {
  handle(message).catch((error: unknown) =>
    reply({
      type: 'error',
      id: message.id,
      error: error instanceof Error ? `${error.name}: ${error.message}` : String(error),
    }),
  );
});
// The parent going away (finished, or killed) ends the client too.
process.on('disconnect', () => process.exit(0));
reply({ type: 'ready', id: 0 });
