import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { WebhookEdge } from '../../../lambdas/core/pipeline/edge.js';
import type { WebhookRequest } from '../../../lambdas/core/request.js';
import { createEdgeHandler } from '../../../lambdas/handlers/edge-handler.js';

function recordingEdge() {
  const seen: Array<{ provider: string; request: WebhookRequest }> = [];
  const edge = {
    receive: async (provider: string, request: WebhookRequest) => {
      seen.push({ provider, request });
      return { status: 200, body: { ok: true } };
    },
  } as unknown as WebhookEdge;
  return { edge, seen };
}

function apiEvent(overrides: Partial<APIGatewayProxyEventV2>): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: 'POST /webhooks/{provider}',
    rawPath: '/webhooks/ses',
    rawQueryString: '',
    headers: {},
    pathParameters: { provider: 'ses' },
    isBase64Encoded: false,
    requestContext: {
      http: { method: 'POST', path: '/webhooks/ses', protocol: 'HTTP/1.1', sourceIp: '203.0.113.9', userAgent: '' },
    },
    ...overrides,
  } as APIGatewayProxyEventV2;
}

describe('edge handler', () => {
  it('decodes base64 bodies to the exact bytes and passes the source IP from requestContext', async () => {
    const { edge, seen } = recordingEdge();
    const bytes = Buffer.from([0x5b, 0x7b, 0x7d, 0x5d, 0x0d, 0x0a]);
    const response = await createEdgeHandler(edge)(
      apiEvent({
        body: bytes.toString('base64'),
        isBase64Encoded: true,
        headers: { 'X-Forwarded-For': '1.2.3.4', 'Content-Type': 'text/plain' },
      }),
    );
    expect(response.statusCode).toBe(200);
    expect(seen[0]!.request.body.equals(bytes)).toBe(true);
    expect(seen[0]!.request.sourceIp).toBe('203.0.113.9');
    expect(seen[0]!.request.headers['content-type']).toBe('text/plain');
  });

  it('takes text bodies as UTF-8', async () => {
    const { edge, seen } = recordingEdge();
    await createEdgeHandler(edge)(apiEvent({ body: '{"é":1}' }));
    expect(seen[0]!.request.body.toString('utf8')).toBe('{"é":1}');
  });

  it('answers 413 before decoding an oversized body', async () => {
    const { edge, seen } = recordingEdge();
    const response = await createEdgeHandler(edge, { maxBodyBytes: 10 })(
      apiEvent({ body: Buffer.alloc(64).toString('base64'), isBase64Encoded: true }),
    );
    expect(response.statusCode).toBe(413);
    expect(seen).toHaveLength(0);
  });
});
