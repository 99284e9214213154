/**
 * The package's `./cdk` entry (`import { Ratchet } from '@ratchet-email/ratchet/cdk'`): the construct,
 * its props, the shipped stack's outputs, and `readConfig` for an app that wants the context keys of
 * docs/deploy.md. Built into dist/cdk by `npm run build` (tools/build-cdk.ts); aws-cdk-lib and
 * constructs are the app's own (peer dependencies).
 */
export { type ReadConfigOptions, readConfig } from './config.js';
export { addOutputs } from './constructs/outputs.js';
export { Ratchet, type RatchetConfig, type RatchetProps } from './constructs/ratchet.js';
export {
  FRONT_DOOR_KINDS,
  type FrontDoorKind,
  LOG_LEVELS,
  type LogLevel,
  SES_FEED_KINDS,
  type SesFeedKind,
} from './constructs/ratchet-props.js';
export { ContextError } from './context-values.js';
export { RatchetStack, type RatchetStackProps } from './stack.js';
