/**
 * One Lambda function the way every Ratchet handler is deployed: Node.js 22 on arm64, bundled locally
 * by esbuild (never Docker) into a minified ESM file with the AWS SDK clients inside, its own log
 * group with a retention, and its own role that starts with nothing but write access to that log
 * group (no AWSLambdaBasicExecutionRole, whose logs:* statements are on "*").
 *
 * From this repository the handler is bundled from its TypeScript entry (`NodejsFunction`). The
 * published package ships no sources: `npm run build` bundles every entry in HANDLER_ENTRIES with the
 * same esbuild options into `dist/handlers/<name>/index.mjs` (tools/build-cdk.ts), and an installed
 * construct deploys that file as it is (`Code.fromAsset`), so an app needs neither esbuild nor Docker.
 */

import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import {
  ApplicationLogLevel,
  Architecture,
  Code,
  type FunctionProps,
  Function as LambdaFunction,
  LoggingFormat,
  Runtime,
  SystemLogLevel,
} from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * ESM output runs bundled CommonJS dependencies through esbuild's `__require` shim, which needs a real
 * `require` for Node built-ins; this gives it one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __ratchetCreateRequire } from 'node:module'; const require = __ratchetCreateRequire(import.meta.url);";

/** Every Lambda entry the constructs deploy: what the package build bundles into dist/handlers. */
export const HANDLER_ENTRIES = [
  'lambdas/edge.ts',
  'lambdas/consumer.ts',
  'lambdas/ses-feed.ts',
  'lambdas/sync-worker.ts',
  'lambdas/sync-sweeper.ts',
  'lambdas/reputation.ts',
  'lambdas/reputation-counter.ts',
] as const;
export type HandlerEntry = (typeof HANDLER_ENTRIES)[number];

/** Where the package build puts an entry's bundle, relative to the project root. */
export const prebuiltHandlerDir = (entry: HandlerEntry): string => join('dist', 'handlers', basename(entry, '.ts'));
export const PREBUILT_HANDLER_FILE = 'index.mjs';

/** The bundling every handler gets, from source or prebuilt: esbuild options shared with tools/build-cdk.ts. */
export const HANDLER_BUNDLING = {
  format: 'esm',
  target: 'node22',
  minify: true,
  sourceMap: true,
  // Line mapping without shipping the TypeScript sources inside the zip.
  sourcesContent: false,
  // The SDK's ESM builds: a third smaller than the CJS ones and quicker to load (reference §10).
  mainFields: ['module', 'main'],
} as const;

export interface HandlerFunctionProps {
  /** Absolute path of the project root (holds package-lock.json, or dist/handlers when installed). */
  readonly projectRoot: string;
  /** Entry file, relative to the project root. */
  readonly entry: HandlerEntry;
  readonly description: string;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly environment: Record<string, string>;
  readonly logRetention: logs.RetentionDays;
  /**
   * Copies reserved for it, and its ceiling: for a function nothing else bounds (no SQS event source
   * with MaximumConcurrency), the concurrency budget counts this.
   * @default - none
   */
  readonly reservedConcurrency?: number;
}

export class HandlerFunction extends Construct {
  readonly function: LambdaFunction;
  readonly role: iam.Role;
  readonly logGroup: logs.LogGroup;

  constructor(scope: Construct, id: string, props: HandlerFunctionProps) {
    super(scope, id);

    this.logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention });
    this.role = new iam.Role(this, 'Role', {
      assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
      description: `${props.description} (Ratchet)`,
    });
    this.logGroup.grantWrite(this.role);

    const common: Omit<FunctionProps, 'code' | 'handler'> = {
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      description: props.description,
      timeout: Duration.seconds(props.timeoutSeconds),
      memorySize: props.memoryMb,
      reservedConcurrentExecutions: props.reservedConcurrency,
      role: this.role,
      logGroup: this.logGroup,
      // JSON logs with the platform's own START/END/REPORT lines only at WARN: those three lines per
      // invocation were about a third of the log bill (npm run cost). The application level follows
      // LOG_LEVEL, so Powertools and Lambda's log-level control agree.
      loggingFormat: LoggingFormat.JSON,
      systemLogLevelV2: SystemLogLevel.WARN,
      applicationLogLevelV2: applicationLogLevel(props.environment.LOG_LEVEL),
      environment: props.environment,
    };
    const source = join(props.projectRoot, props.entry);
    const prebuilt = join(props.projectRoot, prebuiltHandlerDir(props.entry));
    if (!existsSync(source) && existsSync(join(prebuilt, PREBUILT_HANDLER_FILE))) {
      // An installed package: the bundle `npm run build` made, as it is.
      this.function = new LambdaFunction(this, 'Function', {
        ...common,
        code: Code.fromAsset(prebuilt),
        handler: `${basename(PREBUILT_HANDLER_FILE, '.mjs')}.handler`,
      });
      return;
    }
    this.function = new NodejsFunction(this, 'Function', {
      ...common,
      entry: source,
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
      bundling: {
        format: OutputFormat.ESM,
        target: HANDLER_BUNDLING.target,
        minify: HANDLER_BUNDLING.minify,
        sourceMap: HANDLER_BUNDLING.sourceMap,
        sourcesContent: HANDLER_BUNDLING.sourcesContent,
        mainFields: [...HANDLER_BUNDLING.mainFields],
        // Bundle the SDK clients we pin and test against instead of the runtime's copy.
        externalModules: [],
        banner: ESM_REQUIRE_BANNER,
        forceDockerBundling: false,
      },
    });
  }
}

function applicationLogLevel(level: string | undefined): ApplicationLogLevel {
  const levels: Record<string, ApplicationLogLevel> = {
    DEBUG: ApplicationLogLevel.DEBUG,
    INFO: ApplicationLogLevel.INFO,
    WARN: ApplicationLogLevel.WARN,
    ERROR: ApplicationLogLevel.ERROR,
  };
  return levels[(level ?? 'INFO').toUpperCase()] ?? ApplicationLogLevel.INFO;
}
