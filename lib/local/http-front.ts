/**
 * The local stand-in for API Gateway: turns each HTTP request into an HTTP API (payload 2.0) event and
 * hands it to the very same edge handler the Lambda runs. The body is passed base64-encoded, as API
 * Gateway does for bodies it will not treat as text, so the handler sees the exact bytes.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { EdgeHandler } from '../../lambdas/handlers/edge-handler.js';
import { EDGE } from '../definitions.js';
import { LOOPBACK_HOST, loopbackPort } from './emulators.js';

const ROUTE = /^\/webhooks\/([^/]+)$/;
const UNSUBSCRIBE_ROUTE = /^\/unsubscribe\/([^/]+)$/;

export interface HttpFront {
  server: Server;
  port: number;
  url: string;
  close(): Promise<void>;
}

/** Loopback only, like the emulators: a provider reaches it through a tunnel you choose (see docs/decisions.md). */
export async function startHttpFront(handler: EdgeHandler, options: { port: number }): Promise<HttpFront> {
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', 'http://local');
      if (url.pathname === '/healthz') return send(200, { ok: true });
      const match = ROUTE.exec(url.pathname);
      const unsubscribe = UNSUBSCRIBE_ROUTE.exec(url.pathname);
      if (!match && !unsubscribe) return send(404, { error: 'not_found' });
      const methods = unsubscribe ? ['GET', 'POST'] : ['POST'];
      if (!methods.includes(req.method ?? '')) return send(405, { error: 'method_not_allowed' });
      const body = await readBody(req, EDGE.maxBodyBytes);
      if (body === 'too_large') return send(413, { error: 'payload_too_large' });
      // The token is base64url: passed as sent (a `%` in it makes it invalid, which the endpoint answers).
      const route: { key: string; parameters: Record<string, string> } = unsubscribe
        ? { key: `${req.method} /unsubscribe/{token}`, parameters: { token: unsubscribe[1]! } }
        : { key: 'POST /webhooks/{provider}', parameters: { provider: decodeURIComponent(match![1]!) } };
      const result = await handler(toApiGatewayEvent(req, url, route, body));
      res.writeHead(result.statusCode ?? 200, result.headers as Record<string, string>);
      res.end(result.body ?? '');
    })().catch((error: unknown) => {
      console.error('local front: unexpected failure', error);
      if (!res.headersSent) send(500, { error: 'internal_error' });
    });

    function send(status: number, body: unknown): void {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, LOOPBACK_HOST, () => resolve());
  });
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  const port = await loopbackPort(server, 'the HTTP front', close);
  return { server, port, url: `http://${LOOPBACK_HOST}:${port}`, close };
}

/** Reads at most `limit` bytes; past that, stops reading and reports `too_large` without buffering the rest. */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        req.removeAllListeners('data');
        req.resume();
        resolve('too_large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

function toApiGatewayEvent(
  req: IncomingMessage,
  url: URL,
  route: { key: string; parameters: Record<string, string> },
  body: Buffer,
): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {};
  // API Gateway joins repeated headers with commas; do the same so a duplicated signature header fails closed.
  for (const [name, values] of Object.entries(req.headersDistinct)) {
    if (values) headers[name] = values.join(',');
  }
  const sourceIp = (req.socket.remoteAddress ?? '').replace(/^::ffff:/, '');
  const now = Date.now();
  return {
    version: '2.0',
    routeKey: route.key,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    headers,
    pathParameters: route.parameters,
    isBase64Encoded: true,
    body: body.toString('base64'),
    requestContext: {
      accountId: '000000000000',
      apiId: 'local',
      domainName: 'localhost',
      domainPrefix: 'localhost',
      http: {
        method: req.method ?? 'POST',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp,
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: route.key,
      stage: '$default',
      time: new Date(now).toISOString(),
      timeEpoch: now,
    },
  };
}
