/**
 * The loopback HTTP server every provider fake runs on: 127.0.0.1, a random port, and the scripted
 * faults the sync tests need (N answers of 429 with Retry-After, a provider "down" for a while, either
 * refusing connections or answering 503), plus a record of every call with its time.
 *
 * A fake only supplies `route(request)`: the provider's own paths, auth, validation and paging.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface FakeRequest {
  readonly method: string;
  /** The path, percent-decoded segment by segment by the route that needs it (raw here). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Header names lower-cased, as node gives them. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly body: string;
  /** The fake's own base URL (paging links are absolute, as the real APIs give them). */
  readonly baseUrl: string;
}

export interface FakeResponse {
  readonly status: number;
  readonly headers?: Readonly<Record<string, string>>;
  /** A string is sent as is; anything else as JSON. `undefined`: no body (204). */
  readonly body?: unknown;
}

export interface RecordedCall {
  readonly at: number;
  readonly method: string;
  readonly path: string;
  readonly query: string;
  readonly body: string;
  /** What the fake answered (a scripted fault included). */
  readonly status: number;
}

export type Route = (request: FakeRequest) => FakeResponse | Promise<FakeResponse>;

/**
 * One add the fake took: the addresses it put on a list, once per request (a batch is one push of many).
 * Benches count pushes per address from these rather than parsing each provider's body shape.
 */
export interface RecordedPush {
  readonly at: number;
  /**
   * The list's path, as requested (`/v3/asm/groups/7/suppressions`, `/message-streams/outbound/suppressions`),
   * or the path of the list the add landed on when the provider put it elsewhere (SendGrid: a group that
   * does not exist sends it to `/v3/asm/suppressions/global`).
   */
  readonly path: string;
  /** The addresses the request put on that list, as sent (Postmark: only those it answered `Suppressed`). */
  readonly emails: readonly string[];
}

/** The push log a fake keeps beside its call log; `clearCalls` on the fake empties both. */
export function pushLog(now: () => number) {
  const pushes: RecordedPush[] = [];
  return {
    record: (path: string, emails: readonly string[]) => void pushes.push({ at: now(), path, emails: [...emails] }),
    pushes: (): readonly RecordedPush[] => pushes.map((p) => ({ ...p, emails: [...p.emails] })),
    clear: () => void pushes.splice(0),
  };
}

export interface LoopbackFake {
  readonly url: string;
  readonly port: number;
  /** Every call so far, oldest first (down-refused connections never arrive, so they are not here). */
  readonly calls: readonly RecordedCall[];
  clearCalls(): void;
  /** The next `times` requests answer this instead of reaching the route. */
  script(response: FakeResponse, times?: number): void;
  /** The next `times` requests answer 429 with these headers (the provider's own rate-limit shape). */
  rateLimit(times: number, headers: Readonly<Record<string, string>>, body?: unknown): void;
  /** For `forMs`: every request answers 429 with these headers (a rate limit that outlasts many retries). */
  rateLimitFor(forMs: number, headers: Readonly<Record<string, string>>): void;
  /** For `forMs`: `refused` closes the port (connection refused), `503` answers Service Unavailable. */
  down(forMs: number, mode?: 'refused' | '503'): Promise<void>;
  close(): Promise<void>;
}

export interface LoopbackOptions {
  /** The body a scripted 429 or 503 carries, in the provider's own error shape. */
  readonly faultBody?: (status: number) => unknown;
  /** Headers a scripted 429/503 carries besides the ones scripted (AWS: x-amzn-errortype). */
  readonly faultHeaders?: (status: number) => Readonly<Record<string, string>>;
  readonly now?: () => number;
}

function send(res: ServerResponse, response: FakeResponse): void {
  const headers: Record<string, string> = { ...response.headers };
  let payload: string | undefined;
  if (typeof response.body === 'string') {
    payload = response.body;
    headers['content-type'] ??= 'text/plain; charset=utf-8';
  } else if (response.body !== undefined) {
    payload = JSON.stringify(response.body);
    headers['content-type'] ??= 'application/json';
  }
  res.writeHead(response.status, headers);
  res.end(payload);
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      server.off('error', reject);
      const address = server.address();
      resolve(typeof address === 'object' && address ? address.port : port);
    });
  });
}

export async function startLoopback(route: Route, options: LoopbackOptions = {}): Promise<LoopbackFake> {
  const now = options.now ?? Date.now;
  const calls: RecordedCall[] = [];
  const scripted: FakeResponse[] = [];
  const sockets = new Set<Socket>();
  let downUntil = 0;
  let limitedUntil = 0;
  let limitHeaders: Readonly<Record<string, string>> = {};
  let baseUrl = '';

  const fault = (status: number, headers: Record<string, string> = {}, body?: unknown): FakeResponse => ({
    status,
    headers: { ...options.faultHeaders?.(status), ...headers },
    body: body ??
      options.faultBody?.(status) ?? { message: status === 429 ? 'Too Many Requests' : 'Service Unavailable' },
  });

  const server = createServer((req, res) => {
    void (async () => {
      const body = await readBody(req);
      const url = new URL(req.url ?? '/', baseUrl);
      const headers: Record<string, string | undefined> = {};
      for (const [name, value] of Object.entries(req.headers))
        headers[name] = Array.isArray(value) ? value.join(', ') : value;
      let response: FakeResponse;
      if (now() < downUntil) response = fault(503);
      else if (now() < limitedUntil) response = fault(429, { ...limitHeaders });
      else if (scripted.length > 0) response = scripted.shift()!;
      else {
        try {
          response = await route({
            method: req.method ?? 'GET',
            path: url.pathname,
            query: url.searchParams,
            headers,
            body,
            baseUrl,
          });
        } catch (error) {
          response = { status: 500, body: { message: `fake failed: ${(error as Error).message}` } };
        }
      }
      calls.push({
        at: now(),
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.search,
        body,
        status: response.status,
      });
      send(res, response);
    })();
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await listen(server, 0);
  baseUrl = `http://127.0.0.1:${port}`;

  const closeServer = () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy();
      server.close(() => resolve());
    });

  let reopenTimer: NodeJS.Timeout | undefined;
  let closed = false;

  return {
    url: baseUrl,
    port,
    calls,
    clearCalls: () => void calls.splice(0),
    script(response, times = 1) {
      for (let i = 0; i < times; i += 1) scripted.push(response);
    },
    rateLimit(times, headers, body) {
      for (let i = 0; i < times; i += 1) scripted.push(fault(429, { ...headers }, body));
    },
    rateLimitFor(forMs, headers) {
      limitedUntil = now() + forMs;
      limitHeaders = headers;
    },
    async down(forMs, mode = 'refused') {
      if (mode === '503') {
        downUntil = now() + forMs;
        return;
      }
      await closeServer();
      reopenTimer = setTimeout(() => {
        reopenTimer = undefined;
        if (!closed) void listen(server, port).catch(() => undefined);
      }, forMs);
    },
    async close() {
      closed = true;
      if (reopenTimer) clearTimeout(reopenTimer);
      if (server.listening) await closeServer();
    },
  };
}

/** The address part checks every fake shares: one `@`, a dotted domain, no spaces (what the real APIs refuse). */
export function isEmail(value: unknown): value is string {
  return typeof value === 'string' && value.length <= 320 && /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(value);
}

/** A path segment, percent-decoded (an address in a path arrives encoded: `%40`). */
export function segment(value: string | undefined): string {
  return decodeURIComponent(value ?? '');
}

/** Parses a JSON body, or undefined when it is not JSON (each fake answers that in its own shape). */
export function parseJson(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}
