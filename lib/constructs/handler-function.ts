/**
 * One Lambda function the way every Ratchet handler is deployed: Node.js 22 on arm64, bundled locally
 * by esbuild (never Docker) into a minified ESM file with the AWS SDK clients inside, its own log
 * group with a retention, and its own role that starts with nothing but write access to that log
 * group (no AWSLambdaBasicExecutionRole, whose logs:* statements are on "*").
 */

import { join } from 'node:path';
import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { ApplicationLogLevel, Architecture, LoggingFormat, Runtime, SystemLogLevel } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';

/**
 * ESM output runs bundled CommonJS dependencies through esbuild's `__require` shim, which needs a real
 * `require` for Node built-ins; this gives it one.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __ratchetCreateRequire } from 'node:module'; const require = __ratchetCreateRequire(import.meta.url);";

export interface HandlerFunctionProps {
  /** Absolute path of the project root (holds package-lock.json). */
  readonly projectRoot: string;
  /** Entry file, relative to the project root. */
  readonly entry: string;
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
  readonly function: NodejsFunction;
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

    this.function = new NodejsFunction(this, 'Function', {
      entry: join(props.projectRoot, props.entry),
      handler: 'handler',
      projectRoot: props.projectRoot,
      depsLockFilePath: join(props.projectRoot, 'package-lock.json'),
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
      bundling: {
        format: OutputFormat.ESM,
        target: 'node22',
        minify: true,
        sourceMap: true,
        // Line mapping without shipping the TypeScript sources inside the zip.
        sourcesContent: false,
        // The SDK's ESM builds: a third smaller than the CJS ones and quicker to load (reference §10).
        mainFields: ['module', 'main'],
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
