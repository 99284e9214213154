#!/usr/bin/env node
/**
 * CDK app entry (cdk.json runs it with tsx). Deployment settings are CDK context, read by the stack
 * (lib/config.ts); `-c stackName=...` picks the stack name. A setting that does not parse, or a key
 * that is not a setting, ends the synth with one line per problem and exit 2, not a stack trace.
 */
import { App, Tags } from 'aws-cdk-lib';
import { readStackName } from '../lib/context-keys.js';
import { ContextError } from '../lib/context-values.js';
import { RatchetStack } from '../lib/stack.js';

const app = new App();
try {
  new RatchetStack(
    app,
    readStackName((key) => app.node.tryGetContext(key)),
    {
      description: 'Ratchet: authenticated, exactly-once receiver for email-provider webhooks',
      // Environment-agnostic unless the CLI resolved an account and region from credentials.
      env: { account: process.env.CDK_DEFAULT_ACCOUNT, region: process.env.CDK_DEFAULT_REGION },
    },
  );
} catch (error) {
  if (!(error instanceof ContextError)) throw error;
  console.error(error.message);
  process.exit(2);
}
Tags.of(app).add('project', 'ratchet');

app.synth();
