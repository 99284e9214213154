import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests start dynalite + fauxqs once per worker; CDK synth is slow on 2 cores.
    testTimeout: 30_000,
    hookTimeout: 180_000,
    pool: 'forks',
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
