/**
 * The same edge handler behind both front doors: API Gateway's `{provider}` route (pathParameters),
 * its literal `POST /webhooks/ses` route, and a Lambda Function URL (same v2 payload, no routes, no
 * pathParameters), which is routed by rawPath.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import type { WebhookEdge } from '../../../lambdas/core/pipeline/edge.js';
import { createEdgeHandler, providerFromPath } from '../../../lambdas/handlers/edge-handler.js';

function recordingEdge() {
  const providers: string[] = [];
  const edge = {
    receive: async (provider: string) => {
      providers.push(provider);
      return { status: provider === '' ? 404 : 200, body: {} };
    },
  } as unknown as WebhookEdge;
  return { edge, providers };
}

const base = { version: '2.0', rawQueryString: '', headers: {}, isBase64Encoded: false, body: '{}' };

describe('edge handler behind each front door', () => {
  it('API Gateway {provider} route: the path parameter', async () => {
    const { edge, providers } = recordingEdge();
    await createEdgeHandler(edge)({
      ...base,
      routeKey: 'POST /webhooks/{provider}',
      rawPath: '/webhooks/mailgun',
      pathParameters: { provider: 'mailgun' },
    } as unknown as APIGatewayProxyEventV2);
    expect(providers).toEqual(['mailgun']);
  });

  it('API Gateway literal SES route and a Function URL: the raw path', async () => {
    const { edge, providers } = recordingEdge();
    const handler = createEdgeHandler(edge);
    await handler({
      ...base,
      routeKey: 'POST /webhooks/ses',
      rawPath: '/webhooks/ses',
    } as unknown as APIGatewayProxyEventV2);
    // A Function URL event: routeKey `$default`, no pathParameters.
    await handler({
      ...base,
      routeKey: '$default',
      rawPath: '/webhooks/sendgrid',
    } as unknown as APIGatewayProxyEventV2);
    expect(providers).toEqual(['ses', 'sendgrid']);
  });

  it('a path that is not /webhooks/<provider> reaches no provider (404)', async () => {
    const { edge } = recordingEdge();
    const response = await createEdgeHandler(edge)({
      ...base,
      routeKey: '$default',
      rawPath: '/admin',
    } as unknown as APIGatewayProxyEventV2);
    expect(response.statusCode).toBe(404);
    for (const path of ['/', '/webhooks', '/webhooks/', '/webhooks/ses/extra', '/x/webhooks/ses', undefined]) {
      expect(providerFromPath(path), String(path)).toBe('');
    }
    expect(providerFromPath('/webhooks/ses/')).toBe('ses');
  });
});
