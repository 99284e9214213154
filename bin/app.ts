#!/usr/bin/env node
/**
 * CDK app entry (cdk.json runs it with tsx). Deployment settings are CDK context, read by the stack
 * (lib/config.ts); `-c stackName=...` picks the stack name. A setting the stack refuses (every such
 * message starts `context <key>`) ends the synth with that one line and exit code 1: the stack trace
 * would only bury the line that matters. Anything else is a bug and keeps its trace.
 */
import { App, Tags } from 'aws-cdk-lib';
import { RatchetStack } from '../lib/stack.js';

const app = new App();
const stackName: unknown = app.node.tryGetContext('stackName');

try {
  new RatchetStack(app, typeof stackName === 'string' && stackName !== '' ? stackName : 'Ratchet', {
    description: 'Ratchet: authenticated, exactly-once receiver for email-provider webhooks',
    // Environment-agnostic unless the CLI resolved an account and region from credentials.
    env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
  });
} catch (error) {
  if (!(error instanceof Error && error.message.startsWith('context '))) throw error;
  process.stderr.write(`cdk synth: ${error.message}\n`);
  process.exit(1);
}
Tags.of(app).add('project', 'ratchet');

app.synth();
