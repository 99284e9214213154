import { defineConfig } from 'vitest/config';

// Unit tests only: every mutant of lambdas/core is judged by tests that need no emulator.
export default defineConfig({
  test: {
    include: ['test/unit/**/*.test.ts'],
    testTimeout: 180_000,
    pool: 'forks',
    // Property tests at 5 % of their runs (test/unit/support/property-runs.ts): see the note there.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', PROPERTY_RUNS_SCALE: '0.05' },
  },
});
