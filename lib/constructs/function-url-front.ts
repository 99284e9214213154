/**
 * The Lambda Function URL front door (context `front=function-url`): the edge answers on its own
 * HTTPS URL, no API Gateway in between ($1.00 per million requests less). Function URL events use the
 * API Gateway v2 payload, and the edge routes by `rawPath`, so the same handler serves both doors.
 *
 * There is no per-route throttle here. The edge's reserved concurrency is the limit, sized from the
 * SNS pace (config.ts): past it, Lambda answers 429 to whoever comes next. SendGrid, Mailgun,
 * Postmark and Standard Webhooks senders retry a 429; SNS counts it as delivered. So the SES share
 * of the concurrency is kept at twice what the SNS pace needs, and docs/deploy.md says when to prefer the
 * API Gateway door, whose SES route has a bucket of its own.
 */
import { Fn } from 'aws-cdk-lib';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct, type IDependable } from 'constructs';
import type { FrontDoor } from './front-door.js';

export interface FunctionUrlFrontProps {
  readonly edge: lambda.Function;
  readonly reservedConcurrency: number;
}

export class FunctionUrlFront extends Construct implements FrontDoor {
  readonly kind = 'function-url' as const;
  readonly url: lambda.FunctionUrl;
  readonly baseUrl: string;
  readonly ready: readonly IDependable[];

  constructor(scope: Construct, id: string, props: FunctionUrlFrontProps) {
    super(scope, id);
    // Authentication is the edge's signature check, per provider, on the raw bytes.
    this.url = new lambda.FunctionUrl(this, 'Url', { function: props.edge, authType: lambda.FunctionUrlAuthType.NONE });
    (props.edge.node.defaultChild as lambda.CfnFunction).reservedConcurrentExecutions = props.reservedConcurrency;
    // `https://<id>.lambda-url.<region>.on.aws/` -> `https://<id>.lambda-url.<region>.on.aws`
    this.baseUrl = `https://${Fn.select(2, Fn.split('/', this.url.url))}`;
    // The URL answers 403 until the public invoke permissions (InvokeFunctionUrl, and InvokeFunction
    // via the URL) exist, and SNS counts a 403 as delivered: wait for those too.
    const permissions = props.edge.node.findAll().filter((c) => c instanceof lambda.CfnPermission);
    this.ready = [this.url, ...permissions];
  }
}
