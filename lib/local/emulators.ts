/**
 * The embedded AWS stand-ins for `npm start` and the integration tests: dynalite (DynamoDB, optionally
 * on disk) and fauxqs (SQS), both in-process and reachable from this machine only. Either is skipped
 * when the user points us at a real endpoint (DYNAMODB_ENDPOINT / SQS_ENDPOINT: LocalStack, or AWS).
 *
 * Neither emulator authenticates anything: an SQS SendMessage from another machine would be applied by
 * the consumer as if a webhook had been verified. So every listener here is bound to loopback, and
 * checked after binding.
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo, Server } from 'node:net';
import dynalite from 'dynalite';
import { buildApp } from 'fauxqs';

/** The only address an embedded service listens on. */
export const LOOPBACK_HOST = '127.0.0.1';

export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

/** dynalite on a random loopback port; `path` keeps its LevelDB store on disk across restarts. */
export async function startDynamo(options: { path?: string; port?: number } = {}): Promise<Emulator> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, LOOPBACK_HOST, () => resolve());
  });
  const stop = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  const port = await loopbackPort(server, 'dynalite', stop);
  return { endpoint: `http://${LOOPBACK_HOST}:${port}`, stop };
}

/**
 * fauxqs keeps queues in memory only: the local runtime re-sends unapplied inbox rows on start for that
 * reason. Its own `startFauxqs` listens on 0.0.0.0 whatever host it is given (fauxqs 1.9.2,
 * dist/app.js), so we build its app and listen ourselves. `host` on buildApp only shapes queue URLs.
 */
export async function startSqs(options: { port?: number } = {}): Promise<Emulator> {
  const app = buildApp({ logger: false, host: LOOPBACK_HOST });
  await app.listen({ port: options.port ?? 0, host: LOOPBACK_HOST });
  const stop = () => app.close();
  const port = await loopbackPort(app.server, 'fauxqs', stop);
  return { endpoint: `http://${LOOPBACK_HOST}:${port}`, stop };
}

/** The bound port, after checking the socket really is on loopback (a dependency update must not widen it). */
export async function loopbackPort(server: Server, name: string, stop: () => Promise<void>): Promise<number> {
  const address = server.address() as AddressInfo | null;
  if (!address || !isLoopbackAddress(address.address)) {
    await stop();
    throw new Error(`${name} bound to ${address?.address ?? 'no address'}, not loopback: refusing to run it`);
  }
  return address.port;
}

/** 127.0.0.0/8 and ::1 (also as an IPv4-mapped IPv6 address). */
export function isLoopbackAddress(address: string): boolean {
  const v4 = address.replace(/^::ffff:/i, '');
  return /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(v4) || address === '::1';
}
