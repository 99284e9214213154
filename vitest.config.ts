import { availableParallelism } from 'node:os';
import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Files that may run two (or more) at a time, beside each other: the unit tests (no network), the CDK
 * template tests, and the integration tests that hold no wall-clock bound. Those drive the local stack
 * by hand (`drain()`, no background poller, no sleep, no deadline loop, no spawned server to wait for;
 * where they read the clock, their margins are minutes or hours), so a slower core changes when they
 * finish, never what they see. `cdk-package` builds `dist/` in the checkout with `npm pack`, as
 * `client-package` does: only one of the two may be here.
 *
 * Everything else (every other integration test, the browser tests, and any new file) runs in the
 * `serial` project, one file at a time, after this group: latency bounds ("within 10 s"), kill/restart
 * races and polling deadlines never share the CPU with another test file.
 */
const PARALLEL = [
  'test/unit/**/*.test.ts',
  'test/infra/**/*.test.ts',
  ...[
    'bad-inputs',
    'cdk-package',
    'cli',
    'cli-doctor',
    'cli-exit-codes',
    'cli-export-roundtrip',
    'cli-import-export',
    'cli-import-refusals',
    'cli-queue-names',
    'duplicates',
    'document-client',
    'dynamodb-scan',
    'end-to-end',
    'faults',
    'import-store',
    'listing',
    'message-strikes',
    'reputation',
    'reputation-notify',
    'reputation-store',
    'reputation-stream',
    'sns-subscription',
    'stored-shapes',
    'stores',
    'suppression-create-first',
    'suppression-marker-race',
    'topics',
    'unsubscribe',
  ].map((name) => `test/integration/${name}.test.ts`),
];

export default defineConfig({
  test: {
    // Integration tests start dynalite + fauxqs once per file; CDK synth is slow on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    // vitest's own default in run mode is one worker less than the cores: 1 on a 2-core machine, so
    // every file ran alone. Each file still gets a fresh process (isolate, the default): source modules
    // keep state at module level (key caches, the nonce pool, SDK clients), which `isolate: false` shares.
    projects: [
      {
        extends: true,
        test: {
          name: 'parallel',
          include: PARALLEL,
          maxWorkers: Math.max(2, availableParallelism()),
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'serial',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...PARALLEL],
          maxWorkers: 1,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
