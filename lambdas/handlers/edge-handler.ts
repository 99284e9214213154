/** API Gateway (HTTP API, payload 2.0) ⇄ the transport-neutral edge. Nothing else happens here. */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../adapters/runtime-defaults.js';
import type { WebhookEdge } from '../core/pipeline/edge.js';
import { lowerCaseHeaders } from '../core/request.js';
import type { UnsubscribeEndpoint } from '../core/unsubscribe/endpoint.js';

export type EdgeHandler = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

// `/unsubscribe/{token}` however the front door names it: a route parameter, or just the path.
const UNSUBSCRIBE_PATH = /^\/unsubscribe\/([^/]+)\/?$/;

export interface EdgeHandlerOptions {
  /**
   * The largest body accepted, in bytes; larger is refused with 413 before it is decoded.
   * @default MAX_BODY_BYTES (runtime-defaults.ts)
   */
  maxBodyBytes?: number;
  /**
   * What answers `/unsubscribe/{token}`.
   * @default none: those paths answer 404
   */
  unsubscribe?: UnsubscribeEndpoint;
}

export function createEdgeHandler(
  edge: WebhookEdge,
  { maxBodyBytes = MAX_BODY_BYTES, unsubscribe }: EdgeHandlerOptions = {},
): EdgeHandler {
  return async (event) => {
    const token = event.pathParameters?.token ?? UNSUBSCRIBE_PATH.exec(event.rawPath ?? '')?.[1];
    // API Gateway's `{provider}` route fills pathParameters; its literal `/webhooks/ses` route and a
    // Function URL (same v2 payload, no routes) do not, so fall back to the raw path.
    const provider = event.pathParameters?.provider ?? providerFromPath(event.rawPath);
    const encoded = event.body ?? '';
    // Refuse oversized bodies before decoding them, let alone parsing them.
    const approxBytes = event.isBase64Encoded
      ? Math.floor((encoded.length * 3) / 4)
      : Buffer.byteLength(encoded, 'utf8');
    if (approxBytes > maxBodyBytes + 3) return respond(413, { error: 'payload_too_large' });
    const body = event.isBase64Encoded ? Buffer.from(encoded, 'base64') : Buffer.from(encoded, 'utf8');
    if (token !== undefined) {
      if (!unsubscribe) return respond(404, { error: 'not_found' });
      const method = event.requestContext?.http?.method ?? 'GET';
      const answer = await unsubscribe.handle({ method, token, headers: lowerCaseHeaders(event.headers), body });
      return { statusCode: answer.status, headers: answer.headers, body: answer.body };
    }
    const result = await edge.receive(provider, {
      body,
      headers: lowerCaseHeaders(event.headers),
      sourceIp: event.requestContext?.http?.sourceIp,
    });
    return respond(result.status, result.body);
  };
}

/** `/webhooks/<provider>` -> `<provider>`; anything else -> '' (answered 404 as an unknown provider). */
export function providerFromPath(rawPath: string | undefined): string {
  const match = /^\/webhooks\/([^/]+)\/?$/.exec(rawPath ?? '');
  return match ? match[1]! : '';
}

function respond(statusCode: number, body: Record<string, unknown>): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}
