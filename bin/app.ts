#!/usr/bin/env node
/**
 * CDK app entry (cdk.json runs it with tsx). Deployment settings are CDK context, read by the stack
 * (lib/config.ts); `-c stackName=...` picks the stack name.
 */
import { App, Tags } from 'aws-cdk-lib';
import { RatchetStack } from '../lib/stack.js';

const app = new App();
const stackName: unknown = app.node.tryGetContext('stackName');

new RatchetStack(app, typeof stackName === 'string' && stackName !== '' ? stackName : 'Ratchet', {
  description: 'Ratchet: authenticated, exactly-once receiver for email-provider webhooks',
  // Environment-agnostic unless the CLI resolved an account and region from credentials.
  env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
});
Tags.of(app).add('project', 'ratchet');

app.synth();
