/**
 * The front door the construct puts before the edge: the HTTP API (route throttles, access log,
 * unsubscribe links) or a Function URL (the edge's reserved concurrency is the throttle).
 */
import type { Construct } from 'constructs';
import { API } from '../definitions.js';
import type { FrontDoor } from './front-door.js';
import { FunctionUrlFront } from './function-url-front.js';
import type { HandlerFunction } from './handler-function.js';
import type { RatchetConfig } from './ratchet-props.js';
import { WebhookApi } from './webhook-api.js';

/** `edgeCode`: every function running the edge code, which must know where unsubscribe links point. */
export function createFrontDoor(
  scope: Construct,
  config: RatchetConfig,
  edge: HandlerFunction,
  edgeCode: ReadonlyArray<HandlerFunction | undefined>,
): FrontDoor {
  if (config.front === 'function-url') {
    return new FunctionUrlFront(scope, 'FunctionUrl', {
      edge: edge.function,
      reservedConcurrency: config.edgeReservedConcurrency,
    });
  }
  const api = new WebhookApi(scope, 'WebhookApi', {
    edge: edge.function,
    throttle: { rateLimit: config.throttleRateLimit, burstLimit: config.throttleBurstLimit },
    sesRoute: { rateLimit: config.sesRouteRateLimit, burstLimit: config.sesRouteBurstLimit },
    unsubscribeRoute: { rateLimit: API.unsubscribeRateLimit, burstLimit: API.unsubscribeBurstLimit },
    logRetention: config.logRetention,
  });
  // Where unsubscribe links point. Not set for the Function URL, where the edge would depend on its
  // own URL (a cycle): there the `UnsubscribeBaseUrl` output is the only source.
  for (const handler of edgeCode) handler?.function.addEnvironment('UNSUBSCRIBE_BASE_URL', api.baseUrl);
  return api;
}
