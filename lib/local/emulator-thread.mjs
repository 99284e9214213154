/**
 * An emulator's own thread (emulators.ts starts one per emulator). The main thread belongs to the
 * runtime: the HTTP front, the handlers, the pollers and the AWS SDK's client side. dynalite (with
 * LevelDB) and fauxqs (with fastify) are the services' server side, which on AWS runs on other machines;
 * here it runs beside the runtime on the other core instead of taking turns with it on one event loop.
 *
 * Plain JavaScript on purpose: a worker thread loads its file with Node's own loader, whatever transforms
 * TypeScript on the main thread (tsx under `npm start` and the benches, vitest in the tests).
 *
 * Messages from emulators.ts: { type: 'start', id, kind: 'dynalite' | 'fauxqs', host, options } and
 * { type: 'stop', id }. Answers: { type: 'started', id, address, port }, { type: 'failed', id, message,
 * code } and { type: 'stopped', id }. The address is the one the socket really got: the main side judges it.
 */
import { mkdirSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';

/** Each running emulator's close, by the id the main side gave it. */
const running = new Map();

parentPort.on('message', (message) => {
  if (message?.type === 'start') void start(message);
  else if (message?.type === 'stop') void stop(message.id);
  // Not a message this file answers: an error on the main side, which must not wait for an answer forever.
  else throw new Error(`emulator thread: unknown message ${JSON.stringify(message?.type)}`);
});

async function start({ id, kind, host, options }) {
  try {
    const { server, close } =
      kind === 'dynalite' ? await listenDynalite(host, options) : await listenFauxqs(host, options);
    running.set(id, close);
    const address = server.address();
    parentPort.postMessage({ type: 'started', id, address: address?.address ?? null, port: address?.port ?? 0 });
  } catch (error) {
    parentPort.postMessage({ type: 'failed', id, message: String(error?.message ?? error), code: error?.code });
  }
}

async function stop(id) {
  const close = running.get(id);
  running.delete(id);
  await close?.();
  parentPort.postMessage({ type: 'stopped', id });
}

/** dynalite's close also closes its LevelDB store (releasing the store's lock for the next start). */
async function listenDynalite(host, options) {
  const { default: dynalite } = await import('dynalite');
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({
    ...(options.path ? { path: options.path } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const close = () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
  return { server, close };
}

/**
 * fauxqs's own `startFauxqs` listens on 0.0.0.0 whatever host it is given (fauxqs 1.9.2, dist/app.js), so
 * we build its app and listen ourselves. `host` on buildApp only shapes queue URLs.
 */
async function listenFauxqs(host, options) {
  const { buildApp } = await import('fauxqs');
  const app = buildApp({ logger: false, host });
  await app.listen({ port: options.port ?? 0, host });
  return { server: app.server, close: () => app.close() };
}
