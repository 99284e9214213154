/**
 * The embedded AWS stand-ins for `npm start` and the integration tests: dynalite (DynamoDB, optionally
 * on disk) and fauxqs (SQS), both in-process on loopback. Either is skipped when the user points us at
 * a real endpoint (DYNAMODB_ENDPOINT / SQS_ENDPOINT: LocalStack, or AWS itself).
 */
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { startFauxqs } from 'fauxqs';

export interface Emulator {
  endpoint: string;
  stop(): Promise<void>;
}

/** dynalite on a random loopback port; `path` keeps its LevelDB store on disk across restarts. */
export async function startDynamo(options: { path?: string; host?: string; port?: number } = {}): Promise<Emulator> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://${host}:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** fauxqs keeps queues in memory only: the local runtime re-sends unapplied inbox rows on start for that reason. */
export async function startSqs(options: { host?: string; port?: number } = {}): Promise<Emulator> {
  const host = options.host ?? '127.0.0.1';
  const server = await startFauxqs({ port: options.port ?? 0, host, logger: false });
  return { endpoint: `http://${host}:${server.port}`, stop: () => server.stop() };
}
