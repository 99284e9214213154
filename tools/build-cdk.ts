/**
 * Builds the package's `./cdk` entry for `npm pack` (run by `npm run build`):
 *
 * - dist/cdk/index.js: lib/cdk.ts bundled as ESM, with aws-cdk-lib and constructs left to the app (peer
 *   dependencies: one copy of the construct library per app);
 * - dist/handlers/<name>/index.mjs: every Lambda entry the constructs deploy (HANDLER_ENTRIES), bundled
 *   with the options HandlerFunction gives NodejsFunction, so an installed construct deploys them as
 *   they are (lib/constructs/handler-function.ts);
 * - dist/bin/ratchet.mjs, dist/bin/send.mjs: the operator CLIs, for the package's `bin`;
 * - dist/cdk/types: the declarations (tsconfig.cdk.json).
 */
import { rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { build } from 'esbuild';
import {
  ESM_REQUIRE_BANNER,
  HANDLER_BUNDLING,
  HANDLER_ENTRIES,
  PREBUILT_HANDLER_FILE,
  prebuiltHandlerDir,
} from '../lib/constructs/handler-function.js';

const ROOT = resolve(import.meta.dirname, '..');

rmSync(join(ROOT, 'dist', 'cdk'), { recursive: true, force: true });
rmSync(join(ROOT, 'dist', 'handlers'), { recursive: true, force: true });
rmSync(join(ROOT, 'dist', 'bin'), { recursive: true, force: true });

await build({
  entryPoints: [join(ROOT, 'lib', 'cdk.ts')],
  outfile: join(ROOT, 'dist', 'cdk', 'index.js'),
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['aws-cdk-lib', 'aws-cdk-lib/*', 'constructs'],
  banner: { js: ESM_REQUIRE_BANNER },
  logLevel: 'warning',
});

// The operator CLIs, for the package's `bin` (bin/*.mjs run them when the sources are absent): their
// dependencies stay the package's own.
await Promise.all(
  ['ratchet', 'send'].map((name) =>
    build({
      entryPoints: [join(ROOT, 'bin', `${name}.ts`)],
      outfile: join(ROOT, 'dist', 'bin', `${name}.mjs`),
      bundle: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      packages: 'external',
      logLevel: 'warning',
    }),
  ),
);

await Promise.all(
  HANDLER_ENTRIES.map((entry) =>
    build({
      entryPoints: [join(ROOT, entry)],
      outfile: join(ROOT, prebuiltHandlerDir(entry), PREBUILT_HANDLER_FILE),
      bundle: true,
      platform: 'node',
      format: HANDLER_BUNDLING.format,
      target: HANDLER_BUNDLING.target,
      minify: HANDLER_BUNDLING.minify,
      sourcemap: HANDLER_BUNDLING.sourceMap,
      sourcesContent: HANDLER_BUNDLING.sourcesContent,
      mainFields: [...HANDLER_BUNDLING.mainFields],
      banner: { js: ESM_REQUIRE_BANNER },
      logLevel: 'warning',
    }),
  ),
);
