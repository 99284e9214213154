import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { WebhookEdge } from '../../../lambdas/core/pipeline/edge.js';
import type { UnsubscribeEndpoint, UnsubscribeHttpRequest } from '../../../lambdas/core/unsubscribe/endpoint.js';
import { createEdgeHandler } from '../../../lambdas/handlers/edge-handler.js';

function apiEvent(
  method: string,
  rawPath: string,
  pathParameters: Record<string, string> | undefined,
  body = '',
): APIGatewayProxyEventV2 {
  return {
    rawPath,
    pathParameters,
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', Accept: 'text/html' },
    isBase64Encoded: true,
    body: Buffer.from(body).toString('base64'),
    requestContext: { http: { method, sourceIp: '192.0.2.1' } },
  } as unknown as APIGatewayProxyEventV2;
}

describe('the edge handler routes /unsubscribe/{token}', () => {
  const calls: Array<{ kind: string; request: unknown }> = [];
  const edge = {
    receive: async (provider: string) => (
      calls.push({ kind: 'webhook', request: provider }), { status: 200, body: { ok: true } }
    ),
  } as unknown as WebhookEdge;
  const endpoint = {
    handle: async (request: UnsubscribeHttpRequest) => (
      calls.push({ kind: 'unsubscribe', request }),
      { status: 200, headers: { 'content-type': 'text/html' }, body: '<p>ok</p>' }
    ),
  } as unknown as UnsubscribeEndpoint;
  const handler = createEdgeHandler(edge, { unsubscribe: endpoint });

  it('by route parameter (API Gateway) and by path alone (a function URL), passing method, headers and body', async () => {
    calls.length = 0;
    const a = await handler(apiEvent('POST', '/unsubscribe/abc', { token: 'abc' }, 'List-Unsubscribe=One-Click'));
    const b = await handler(apiEvent('GET', '/unsubscribe/def', undefined));
    expect(a).toEqual({ statusCode: 200, headers: { 'content-type': 'text/html' }, body: '<p>ok</p>' });
    expect(b.statusCode).toBe(200);
    expect(calls.map((c) => c.kind)).toEqual(['unsubscribe', 'unsubscribe']);
    const first = calls[0]!.request as UnsubscribeHttpRequest;
    expect(first).toMatchObject({
      method: 'POST',
      token: 'abc',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
    });
    expect(first.body.toString()).toBe('List-Unsubscribe=One-Click');
    expect((calls[1]!.request as UnsubscribeHttpRequest).token).toBe('def');
  });

  it('leaves webhooks alone, and answers 404 for unsubscribe paths when no endpoint is wired', async () => {
    calls.length = 0;
    await handler(apiEvent('POST', '/webhooks/generic', { provider: 'generic' }, '{}'));
    expect(calls).toEqual([{ kind: 'webhook', request: 'generic' }]);
    const bare = createEdgeHandler(edge);
    expect((await bare(apiEvent('GET', '/unsubscribe/abc', { token: 'abc' }))).statusCode).toBe(404);
  });
});
