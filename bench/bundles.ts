/**
 * §4 Bundle size and module load time. The edge and consumer entries are bundled with esbuild the way
 * the CDK construct bundles them (lib/constructs/handler-function.ts → NodejsFunction), next to
 * baselines that hold only the SDK clients each handler uses, imported and instantiated. Load time is
 * measured in fresh Node processes, interleaved, with the environment the module scope reads.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { type BuildOptions, build, type Metafile } from 'esbuild';
import { onCleanup } from './lib/cleanup.js';
import { fmt, fmtBytes, fmtRatio, median, pairedRatio } from './lib/stats.js';
import type { SectionResult, Verdict } from './lib/types.js';

const ROOT = resolve(import.meta.dirname, '..');
const RUNS = 45;
const TARGET_RATIO = 1.2;
const MARKER = 'RATCHET_BENCH_LOAD ';

/** The SDK-only baselines: the clients each handler uses, imported and instantiated, nothing else. */
const BASELINES = {
  edge: `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { SNSClient } from '@aws-sdk/client-sns';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
const region = process.env.AWS_REGION;
const clients = {
  doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region })),
  sqs: new SQSClient({ region }),
  sns: new SNSClient({ region }),
  secrets: new SecretsManagerClient({ region }),
};
export const handler = async () => Object.keys(clients).length;
`,
  // The consumer sends the sync fast path itself (lambdas/consumer.ts builds its SQSClient at module scope).
  consumer: `
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
const region = process.env.AWS_REGION;
const clients = { doc: DynamoDBDocumentClient.from(new DynamoDBClient({ region })), sqs: new SQSClient({ region }) };
export const handler = async () => Object.keys(clients).length;
`,
} as const;

/** What the Lambda's module scope reads, plus dummy credentials so nothing looks for a profile. */
const LAMBDA_ENV = {
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDBENCHMARK',
  AWS_SECRET_ACCESS_KEY: 'benchmark',
  QUEUE_URL: 'https://sqs.us-east-1.amazonaws.com/000000000000/ratchet-events',
  INBOX_TABLE: 'ratchet-inbox',
  SUPPRESSION_TABLE: 'ratchet-suppressions',
  AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
};

interface Bundle {
  name: string;
  file: string;
  bytes: number;
  gzipBytes: number;
  /** Bundled input bytes per package (node_modules package, or "ratchet" for our own sources). */
  packages: Array<[string, number]>;
}

/**
 * NodejsFunction's bundling props in handler-function.ts, as esbuild options. aws-cdk-lib turns those
 * props into exactly these CLI flags (aws-lambda-nodejs/lib/bundling.js, buildEsbuildArgs):
 * `--bundle --target=node22 --platform=node --format=esm --minify --sourcemap --sources-content=false
 * --banner:js=… --main-fields=module,main`, no externals, run from the project root.
 * The banner is imported from the construct itself; the other options are mirrored here by hand
 * (they are literals inside the construct's constructor).
 */
async function cdkBuildOptions(): Promise<BuildOptions> {
  const { ESM_REQUIRE_BANNER } = await import('../lib/constructs/handler-function.js');
  return {
    bundle: true,
    target: 'node22',
    platform: 'node',
    format: 'esm',
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: ['module', 'main'],
    external: [],
    banner: { js: ESM_REQUIRE_BANNER },
    absWorkingDir: ROOT,
    metafile: true,
    logLevel: 'warning',
  };
}

async function bundle(
  name: string,
  entry: { file: string } | { contents: string },
  outDir: string,
  options: BuildOptions,
): Promise<Bundle> {
  // index.mjs in a directory of its own, as in the CDK asset (the name ends up in the sourceMappingURL comment).
  const outfile = join(outDir, name, 'index.mjs');
  const result = await build({
    ...options,
    ...('file' in entry
      ? { entryPoints: [join(ROOT, entry.file)] }
      : { stdin: { contents: entry.contents, resolveDir: ROOT, loader: 'ts', sourcefile: `${name}.ts` } }),
    outfile,
  });
  const code = readFileSync(outfile);
  return {
    name,
    file: outfile,
    bytes: code.length,
    gzipBytes: gzipSync(code, { level: 9 }).length,
    packages: packageSizes(result.metafile!),
  };
}

function packageSizes(metafile: Metafile): Array<[string, number]> {
  const output = Object.entries(metafile.outputs).find(([path]) => path.endsWith('.mjs'))?.[1];
  const totals = new Map<string, number>();
  for (const [path, input] of Object.entries(output?.inputs ?? {})) {
    const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
    const key = match ? match[1]! : 'ratchet (our code)';
    totals.set(key, (totals.get(key) ?? 0) + input.bytesInOutput);
  }
  return [...totals.entries()].sort((a, b) => b[1] - a[1]);
}

interface LoadSample {
  importMs: number;
  processMs: number;
}

function loadOnce(loader: string, file: string): LoadSample {
  const start = performance.now();
  const child = spawnSync(process.execPath, [loader, pathToFileURL(file).href], {
    env: { PATH: process.env.PATH ?? '', HOME: tmpdir(), ...LAMBDA_ENV },
    encoding: 'utf8',
    timeout: 30_000,
  });
  const processMs = performance.now() - start;
  const line = child.stdout.split('\n').find((l) => l.startsWith(MARKER));
  if (child.status !== 0 || !line) {
    throw new Error(`loading ${file} failed (exit ${child.status}): ${child.stderr.slice(0, 500)}`);
  }
  return { importMs: (JSON.parse(line.slice(MARKER.length)) as { importMs: number }).importMs, processMs };
}

export interface BundlesOptions {
  log?: (line: string) => void;
}

export async function benchBundles(options: BundlesOptions = {}): Promise<SectionResult> {
  const log = options.log ?? (() => undefined);
  const started = performance.now();
  const outDir = mkdtempSync(join(tmpdir(), 'ratchet-bench-bundles-'));
  const removeDir = () => rmSync(outDir, { recursive: true, force: true });
  const cancelCleanup = onCleanup(removeDir);
  try {
    const buildOptions = await cdkBuildOptions();
    const bundles = {
      edge: await bundle('edge', { file: 'lambdas/edge.ts' }, outDir, buildOptions),
      edgeBaseline: await bundle('edge-baseline', { contents: BASELINES.edge }, outDir, buildOptions),
      consumer: await bundle('consumer', { file: 'lambdas/consumer.ts' }, outDir, buildOptions),
      consumerBaseline: await bundle('consumer-baseline', { contents: BASELINES.consumer }, outDir, buildOptions),
    };
    const empty = join(outDir, 'empty.mjs');
    writeFileSync(empty, 'export const handler = async () => 0;\n');
    const loader = join(outDir, 'loader.mjs');
    writeFileSync(
      loader,
      `const t0 = performance.now();\nawait import(process.argv[2]);\nconst t1 = performance.now();\nconsole.log(${JSON.stringify(MARKER)} + JSON.stringify({ importMs: t1 - t0 }));\n`,
    );
    log(`  bundled into ${outDir}; loading each ${RUNS}× (interleaved)…`);

    const targets: Array<[string, string]> = [
      ['edge', bundles.edge.file],
      ['edgeBaseline', bundles.edgeBaseline.file],
      ['consumer', bundles.consumer.file],
      ['consumerBaseline', bundles.consumerBaseline.file],
      ['empty', empty],
    ];
    const samples = new Map<string, LoadSample[]>(targets.map(([name]) => [name, []]));
    for (const [, file] of targets) loadOnce(loader, file); // disk cache and code paths warm, untimed
    for (let run = 0; run < RUNS; run++) {
      for (let k = 0; k < targets.length; k++) {
        const [name, file] = targets[(run + k) % targets.length]!;
        samples.get(name)!.push(loadOnce(loader, file));
      }
    }
    const imports = (name: string) => samples.get(name)!.map((s) => s.importMs);
    const processes = (name: string) => samples.get(name)!.map((s) => s.processMs);

    const pairs = [
      { label: 'edge', ours: bundles.edge, baseline: bundles.edgeBaseline, key: 'edge', baseKey: 'edgeBaseline' },
      {
        label: 'consumer',
        ours: bundles.consumer,
        baseline: bundles.consumerBaseline,
        key: 'consumer',
        baseKey: 'consumerBaseline',
      },
    ];
    const sizeRows: string[][] = [];
    const loadRows: string[][] = [];
    const verdicts: Verdict[] = [];
    for (const pair of pairs) {
      for (const [label, b] of [
        [`${pair.label} (lambdas/${pair.label}.ts)`, pair.ours],
        [`${pair.label} baseline (SDK clients only)`, pair.baseline],
      ] as const) {
        sizeRows.push([label, fmtBytes(b.bytes), fmtBytes(b.gzipBytes), topPackages(b)]);
      }
      const ratio = pairedRatio(imports(pair.key), imports(pair.baseKey));
      const meets = ratio <= TARGET_RATIO;
      loadRows.push(
        [`${pair.label}`, fmt(median(imports(pair.key))), fmt(median(processes(pair.key))), '', '', ''],
        [
          `${pair.label} baseline`,
          fmt(median(imports(pair.baseKey))),
          fmt(median(processes(pair.baseKey))),
          fmtRatio(ratio),
          `≤ ${fmtRatio(TARGET_RATIO)}`,
          meets ? 'meets' : 'misses',
        ],
      );
      verdicts.push({
        subject: `${pair.label} bundle load time / SDK-clients baseline`,
        target: `≤ ${fmtRatio(TARGET_RATIO)}`,
        measured: fmtRatio(ratio),
        meets,
      });
    }
    loadRows.push([
      'empty module (Node start-up floor)',
      fmt(median(imports('empty'))),
      fmt(median(processes('empty'))),
      '',
      '',
      '',
    ]);
    const sizeRatio = (a: Bundle, b: Bundle) => fmtRatio(a.gzipBytes / b.gzipBytes);

    return {
      id: 'bundles',
      title: '4. Bundles: size and module load time',
      method: [
        "**Bundling** uses esbuild (the project's own, via its JS API) with the options the CDK construct passes: NodejsFunction in `lib/constructs/handler-function.ts` becomes `--bundle --target=node22 --platform=node --format=esm --minify --sourcemap --sources-content=false --main-fields=module,main --banner:js=<createRequire banner>` with no externals (aws-cdk-lib `aws-lambda-nodejs/lib/bundling.js`). The banner is imported from the construct; the other options are mirrored by hand, since they are literals inside its constructor. Output goes to a temp dir; sizes are of the `.mjs` (the source map is separate and not loaded).",
        '**Baselines** hold only the SDK clients each handler uses, imported and instantiated at module scope: edge = DynamoDBClient + DynamoDBDocumentClient, SQSClient, SNSClient, SecretsManagerClient; consumer = DynamoDBClient + DynamoDBDocumentClient, SQSClient (the event source receives for it, but the consumer sends the sync fast path itself).',
        `**Load time** = \`await import(bundle)\` timed inside a fresh \`node loader.mjs <file-url>\` process (Node ${process.version}; the Lambda runtime is Node 22), with AWS_REGION, QUEUE_URL, INBOX_TABLE, SUPPRESSION_TABLE and dummy AWS credentials set, so the module scope builds its clients as in Lambda. ${RUNS} runs per bundle after one untimed load each, interleaved round-robin with a rotating start; medians; ratio = median of per-round ratios. "process ms" is the whole spawn-to-exit wall time, for context.`,
        'gzip is level 9 of the `.mjs`, roughly what the deployment zip stores.',
      ],
      tables: [
        {
          caption: `Sizes (gzip ratio ours/baseline: edge ${sizeRatio(bundles.edge, bundles.edgeBaseline)}, consumer ${sizeRatio(bundles.consumer, bundles.consumerBaseline)}).`,
          columns: ['bundle', 'raw', 'gzip', 'largest inputs (bytes in output)'],
          rows: sizeRows,
        },
        {
          caption: 'Load time.',
          columns: [
            'bundle',
            'import ms (median)',
            'process ms (median)',
            'ours / baseline (import)',
            'target',
            'verdict',
          ],
          rows: loadRows,
        },
      ],
      verdicts,
      notes: [],
      wallMs: performance.now() - started,
    };
  } finally {
    removeDir();
    cancelCleanup();
  }
}

function topPackages(b: Bundle): string {
  return b.packages
    .slice(0, 6)
    .map(([name, bytes]) => `${name} ${fmtBytes(bytes)}`)
    .join(', ');
}
