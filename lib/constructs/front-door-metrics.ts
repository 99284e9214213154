/** What the alarms and the dashboard read from whichever front door serves. */
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { ALARM_PERIOD } from './alarms.js';
import type { FrontDoorMetrics } from './dashboard.js';
import type { FrontDoor } from './front-door.js';
import { WebhookApi } from './webhook-api.js';

/**
 * The front door's 4xx, 429 and 5xx: API Gateway's own metrics (429s from its access log), or for the
 * Function URL the edge's URL metrics and its Lambda throttles.
 */
export function frontDoorMetrics(front: FrontDoor, edge: IFunction): FrontDoorMetrics {
  const options = { period: ALARM_PERIOD, statistic: 'Sum' };
  if (front instanceof WebhookApi) {
    return {
      clientErrors: front.api.metricClientError(options),
      throttled: front.metricThrottled({ period: ALARM_PERIOD }),
      serverErrors: front.api.metricServerError(options),
    };
  }
  return {
    clientErrors: edge.metric('Url4xxCount', options),
    throttled: edge.metricThrottles(options),
    serverErrors: edge.metric('Url5xxCount', options),
  };
}
