/**
 * `ratchet console`'s HTTP server (node:http): 127.0.0.1 only, the guards of security.ts in front of
 * every route, server-rendered pages behind them. A failure of the target is one page naming the target
 * and the fix (as the CLI's one line); bad input is a 400 page, and nothing is written.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../cli/context.js';
import { explainFailure } from '../cli/target.js';
import { html } from './html.js';
import { page, STYLESHEET } from './layout.js';
import { routes } from './routes.js';
import { hostAllowed, SECURITY_HEADERS, Secrets } from './security.js';
import { describeTarget, type Reply, type Request, type Services } from './services.js';

/** A form is a few fields; anything larger is not ours. */
const MAX_BODY_BYTES = 64 * 1024;

export interface RunningConsole {
  /** The URL to open, with the token. */
  url: string;
  origin: string;
  port: number;
  close(): Promise<void>;
}

export async function startConsole(
  services: Omit<Services, 'csrf'>,
  options: { port?: number } = {},
): Promise<RunningConsole> {
  const secrets = new Secrets();
  const all: Services = { ...services, csrf: secrets.csrf };
  let port = 0;
  const server = createServer((request, response) => {
    handle(request, response, secrets, all, port).catch((error) => {
      if (!response.headersSent) send(response, 500, 'text/plain; charset=utf-8', 'internal error');
      else response.destroy(error as Error);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => resolve());
  });
  port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  return {
    url: `${origin}/?token=${secrets.token}`,
    origin,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function handle(
  request: IncomingMessage,
  response: ServerResponse,
  secrets: Secrets,
  services: Services,
  port: number,
): Promise<void> {
  if (!hostAllowed(request.headers.host, port))
    return send(response, 403, 'text/plain; charset=utf-8', 'forbidden host');
  const url = new URL(request.url ?? '/', `http://127.0.0.1:${port}`);
  if (url.searchParams.has('token')) {
    if (!secrets.tokenMatches(url.searchParams.get('token'))) return unauthorized(response);
    url.searchParams.delete('token');
    response.setHeader('Set-Cookie', secrets.sessionCookie());
    // One leading slash: `//host/…` would be a redirect to another site.
    return redirect(response, `/${url.pathname.replace(/^\/+/, '')}${url.search}`);
  }
  if (!secrets.hasSession(request)) return unauthorized(response);
  if (url.pathname === '/console.css') return send(response, 200, 'text/css; charset=utf-8', STYLESHEET);
  let form: URLSearchParams | undefined;
  if (request.method === 'POST') {
    form = await readForm(request);
    if (!form || !secrets.csrfMatches(form.get('csrf')))
      return send(response, 403, 'text/plain; charset=utf-8', 'missing or wrong CSRF token');
  } else if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.setHeader('Allow', 'GET, HEAD, POST');
    return send(response, 405, 'text/plain; charset=utf-8', 'method not allowed');
  }
  const route = routes[`${request.method === 'HEAD' ? 'GET' : request.method} ${url.pathname}`];
  if (!route) return reply(response, notFound(services));
  const req: Request = { query: url.searchParams, form: form ?? new URLSearchParams() };
  let answer: Reply;
  try {
    answer = await route(req, services);
  } catch (error) {
    answer = failure(error, services);
  }
  await reply(response, answer);
}

async function reply(response: ServerResponse, answer: Reply): Promise<void> {
  if ('redirect' in answer) return redirect(response, answer.redirect);
  if ('stream' in answer) {
    for (const [k, v] of Object.entries(SECURITY_HEADERS)) response.setHeader(k, v);
    response.writeHead(200, { 'Content-Type': answer.contentType, 'Content-Disposition': answer.disposition });
    await answer.stream(async (chunk) => {
      if (!response.write(chunk)) await new Promise<void>((r) => response.once('drain', () => r()));
    });
    response.end();
    return;
  }
  send(response, answer.status ?? 200, 'text/html; charset=utf-8', page(answer.page));
}

function failure(error: unknown, services: Services): Reply {
  if (error instanceof InputError)
    return {
      status: 400,
      page: { ...shell(services, 'Bad request'), body: html`<p class="problem">${error.message}</p>` },
    };
  let message: string;
  try {
    message = explainFailure('the console', services.ctx.target, error);
  } catch (targetError) {
    message = (targetError as Error).message;
  }
  return {
    status: 502,
    page: { ...shell(services, 'The target did not answer'), body: html`<p class="problem">${message}</p>` },
  };
}

function shell(services: Services, title: string) {
  return { title, section: 'none' as const, target: describeTarget(services) };
}

function notFound(services: Services): Reply {
  return {
    status: 404,
    page: { ...shell(services, 'Not found'), body: html`<p><a href="/address">Search an address</a></p>` },
  };
}

function unauthorized(response: ServerResponse): void {
  send(
    response,
    401,
    'text/html; charset=utf-8',
    page({
      // No target named: whoever knocks without the token learns nothing about the deployment.
      title: 'Open the console from its link',
      section: 'none',
      target: 'not shown',
      body: html`<p>This console opens only from the link <code>npx ratchet console</code> printed (it carries a one-time token).</p>`,
    }),
  );
}

function redirect(response: ServerResponse, location: string): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) response.setHeader(k, v);
  response.writeHead(303, { Location: location });
  response.end();
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  for (const [k, v] of Object.entries(SECURITY_HEADERS)) response.setHeader(k, v);
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body) });
  response.end(response.req.method === 'HEAD' ? undefined : body);
}

/** A urlencoded form of at most MAX_BODY_BYTES; undefined for anything else. */
async function readForm(request: IncomingMessage): Promise<URLSearchParams | undefined> {
  const type = request.headers['content-type']?.split(';')[0]?.trim();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk as Buffer);
  }
  if (type !== 'application/x-www-form-urlencoded') return undefined;
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}
