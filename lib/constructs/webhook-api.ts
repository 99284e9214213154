/**
 * The API Gateway front door: an HTTP API whose routes all go to the edge Lambda (payload 2.0).
 *
 * Throttling is per route. Each route with its own `RouteSettings` has its own token bucket, so
 * `POST /webhooks/ses` (above the SNS pace) cannot be drained by a Mailgun or Postmark campaign on
 * `POST /webhooks/{provider}`, and the two unsubscribe routes have theirs. The literal `ses` route wins
 * over the greedy `{provider}` one. The only shared bucket left is API Gateway's account quota
 * (10,000 requests/s per region), which config.ts keeps the route limits under.
 *
 * The stage does not auto-deploy. An explicit deployment, which depends on every route, is what the
 * stage serves, so anything that depends on `ready` (the SNS subscription) waits until the routes are
 * live: SNS's SubscriptionConfirmation can never meet a 404. The deployment's id carries a hash of the
 * routes and their integration, so a change to them makes a new deployment.
 *
 * Access logs go to their own log group (route key and status, never the path: it holds unsubscribe
 * tokens), and a metric filter counts 429s, which HTTP APIs do not publish as a metric.
 */

import { createHash } from 'node:crypto';
import { Stack } from 'aws-cdk-lib';
import {
  CfnDeployment,
  type CfnStage,
  HttpApi,
  HttpMethod,
  type HttpRoute,
  HttpStage,
  PayloadFormatVersion,
} from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct, type IDependable } from 'constructs';
import { type FrontDoor, ROUTES } from './front-door.js';
import { ACCESS_LOG_METRICS, METRIC_NAMESPACE } from './metric-catalog.js';

export interface Throttle {
  readonly rateLimit: number;
  readonly burstLimit: number;
}

export interface WebhookApiProps {
  readonly edge: IFunction;
  /** Stage default: `POST /webhooks/{provider}`. */
  readonly throttle: Throttle;
  readonly sesRoute: Throttle;
  /** Each unsubscribe route. */
  readonly unsubscribeRoute: Throttle;
  readonly logRetention: logs.RetentionDays;
}

/** Bump to force a new deployment without a route change. */
const DEPLOYMENT_REVISION = 1;

export class WebhookApi extends Construct implements FrontDoor {
  readonly kind = 'api-gateway' as const;
  readonly api: HttpApi;
  readonly stage: HttpStage;
  readonly deployment: CfnDeployment;
  readonly routes: readonly HttpRoute[];
  readonly accessLogs: logs.LogGroup;
  readonly baseUrl: string;
  readonly ready: readonly IDependable[];

  constructor(scope: Construct, id: string, props: WebhookApiProps) {
    super(scope, id);
    const stack = Stack.of(this);
    this.api = new HttpApi(this, 'Api', { description: 'Ratchet webhook receiver', createDefaultStage: false });
    this.accessLogs = new logs.LogGroup(this, 'AccessLogs', { retention: props.logRetention });

    const integration = new HttpLambdaIntegration('EdgeIntegration', props.edge, {
      payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
    });
    const routes = (this.routes = Object.values(ROUTES).flatMap((key) => {
      const [method, path] = key.split(' ') as [keyof typeof HttpMethod, string];
      return this.api.addRoutes({ path, methods: [HttpMethod[method]], integration });
    }));

    // HttpApi cannot throttle the stage it creates itself, so the $default stage is explicit.
    this.stage = new HttpStage(this, 'DefaultStage', {
      httpApi: this.api,
      stageName: '$default',
      autoDeploy: false,
      throttle: { rateLimit: props.throttle.rateLimit, burstLimit: props.throttle.burstLimit },
    });

    const fingerprint = createHash('sha256')
      .update(JSON.stringify([DEPLOYMENT_REVISION, Object.values(ROUTES), stack.resolve(props.edge.functionArn)]))
      .digest('hex')
      .slice(0, 8)
      .toUpperCase();
    this.deployment = new CfnDeployment(this, `Deployment${fingerprint}`, {
      apiId: this.api.apiId,
      description: 'Ratchet routes, deployed once they all exist',
    });
    for (const route of routes) this.deployment.node.addDependency(route);

    const cfnStage = this.stage.node.defaultChild as CfnStage;
    cfnStage.deploymentId = this.deployment.ref;
    // RouteSettings is untyped JSON in the L1, so CloudFormation's own (Pascal-case) keys.
    const routeThrottle = (t: Throttle) => ({ ThrottlingRateLimit: t.rateLimit, ThrottlingBurstLimit: t.burstLimit });
    cfnStage.routeSettings = {
      [ROUTES.ses]: routeThrottle(props.sesRoute),
      [ROUTES.unsubscribeGet]: routeThrottle(props.unsubscribeRoute),
      [ROUTES.unsubscribePost]: routeThrottle(props.unsubscribeRoute),
    };
    cfnStage.accessLogSettings = {
      destinationArn: this.accessLogs.logGroupArn,
      format: JSON.stringify({
        requestId: '$context.requestId',
        time: '$context.requestTime',
        sourceIp: '$context.identity.sourceIp',
        routeKey: '$context.routeKey',
        status: '$context.status',
        responseLength: '$context.responseLength',
        latencyMs: '$context.responseLatency',
        integrationStatus: '$context.integrationStatus',
        integrationError: '$context.integrationErrorMessage',
        error: '$context.error.message',
      }),
    };
    new logs.MetricFilter(this, 'ThrottledFilter', {
      logGroup: this.accessLogs,
      metricNamespace: METRIC_NAMESPACE,
      metricName: ACCESS_LOG_METRICS.throttled,
      filterPattern: logs.FilterPattern.numberValue('$.status', '=', 429),
      metricValue: '1',
    });

    this.baseUrl = `https://${this.api.apiId}.execute-api.${stack.region}.${stack.urlSuffix}`;
    this.ready = [this.stage, this.deployment, ...routes];
  }

  /** 429s answered by API Gateway (from the access log), every route together. */
  metricThrottled(props: cloudwatch.MetricOptions = {}): cloudwatch.Metric {
    return new cloudwatch.Metric({
      namespace: METRIC_NAMESPACE,
      metricName: ACCESS_LOG_METRICS.throttled,
      statistic: 'Sum',
      ...props,
    });
  }
}
