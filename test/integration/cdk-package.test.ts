/**
 * The construct as a CDK user gets it: `npm pack` this project (prepack builds dist/cdk and
 * dist/handlers), lay the tarball out as npm would (node_modules/@ratchet-email/ratchet), link the
 * app's own aws-cdk-lib and constructs (the peer dependencies), and run docs/cdk-construct.md's
 * example and docs/deploy.md's `readConfig` example, verbatim, as the app. Each must type-check
 * against the shipped declarations and synthesize, with every Ratchet function deployed from the
 * prebuilt bundle (no esbuild, no Docker, no sources in the package).
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HANDLER_ENTRIES, prebuiltHandlerDir } from '../../lib/constructs/handler-function.js';

const ROOT = resolve(import.meta.dirname, '../..');
const PACKAGE = '@ratchet-email/ratchet';

/** The first ```ts block of a doc (of one section, when given). */
function example(doc: string, section?: string): string {
  let text = readFileSync(join(ROOT, 'docs', doc), 'utf8');
  if (section) text = text.slice(text.indexOf(`\n## ${section}\n`));
  const match = /```ts\n([\s\S]*?)```/.exec(text);
  if (!match) throw new Error(`no ts example in docs/${doc}${section ? ` (${section})` : ''}`);
  return match[1]!;
}

interface Template {
  Resources: Record<string, { Type: string; Properties: Record<string, any> }>;
  Outputs?: Record<string, unknown>;
}

describe(`${PACKAGE}/cdk as an installed package`, () => {
  let app: string;
  let packedFiles: string[];

  beforeAll(() => {
    app = mkdtempSync(join(tmpdir(), 'ratchet-cdk-app-'));
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', app], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    packedFiles = packed!.files.map((f) => f.path);
    const scope = join(app, 'node_modules', '@ratchet-email');
    mkdirSync(scope, { recursive: true });
    execFileSync('tar', ['-xzf', join(app, packed!.filename), '-C', join(app, 'node_modules')]);
    renameSync(join(app, 'node_modules', 'package'), join(scope, 'ratchet'));
    // The peer dependencies: the app's own copies.
    for (const name of ['aws-cdk-lib', 'constructs']) {
      symlinkSync(realpathSync(join(ROOT, 'node_modules', name)), join(app, 'node_modules', name));
    }
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'mail', private: true, type: 'module' }));
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        include: ['*.ts'],
      }),
    );
  }, 300_000);
  afterAll(() => {
    if (app) rmSync(app, { recursive: true, force: true });
  });

  /** Runs `file` as the CDK CLI runs an app (CDK_OUTDIR, CDK_CONTEXT_JSON) and returns the stack's template. */
  function synth(
    file: string,
    code: string,
    context: Record<string, unknown> = {},
  ): { template: Template; out: string } {
    writeFileSync(join(app, file), code);
    const out = mkdtempSync(join(app, 'cdk.out-'));
    execFileSync(
      process.execPath,
      ['--import', pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href, file],
      {
        cwd: app,
        encoding: 'utf8',
        timeout: 240_000,
        env: { PATH: process.env.PATH, CDK_OUTDIR: out, CDK_CONTEXT_JSON: JSON.stringify(context) },
      },
    );
    return { template: JSON.parse(readFileSync(join(out, 'Mail.template.json'), 'utf8')) as Template, out };
  }

  const ratchetFunctions = (template: Template) =>
    Object.values(template.Resources).filter(
      (r) => r.Type === 'AWS::Lambda::Function' && String(r.Properties.Description ?? '').startsWith('Ratchet '),
    );

  /** Every Ratchet function's code is an asset directory holding the prebuilt bundle, as shipped. */
  function expectPrebuiltAssets(template: Template, out: string): void {
    const functions = ratchetFunctions(template);
    expect(functions.length).toBeGreaterThanOrEqual(3);
    const shipped = new Set(
      HANDLER_ENTRIES.map((entry) =>
        readFileSync(join(app, 'node_modules', PACKAGE, prebuiltHandlerDir(entry), 'index.mjs'), 'utf8'),
      ),
    );
    for (const fn of functions) {
      expect(fn.Properties).toMatchObject({
        Runtime: 'nodejs22.x',
        Architectures: ['arm64'],
        Handler: 'index.handler',
      });
      const hash = String(fn.Properties.Code.S3Key).replace(/\.zip$/, '');
      const bundle = join(out, `asset.${hash}`, 'index.mjs');
      expect(existsSync(bundle), `${fn.Properties.Description}: ${bundle}`).toBe(true);
      expect(shipped.has(readFileSync(bundle, 'utf8')), 'the asset is one of the shipped bundles, unchanged').toBe(
        true,
      );
    }
  }

  it('ships the construct, its types and a bundle per handler, and no sources', () => {
    expect(packedFiles).toEqual(
      expect.arrayContaining([
        'package.json',
        'dist/cdk/index.js',
        'dist/cdk/types/lib/cdk.d.ts',
        ...HANDLER_ENTRIES.map((entry) => `${prebuiltHandlerDir(entry)}/index.mjs`),
      ]),
    );
    const sources = packedFiles.filter(
      (f) => /^(lib|lambdas|test)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')),
    );
    expect(sources).toEqual([]);
    // The bins are launchers: from the package they run dist/bin.
    expect(packedFiles.filter((f) => f.startsWith('bin/')).sort()).toEqual(['bin/ratchet.mjs', 'bin/send.mjs']);
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    expect(manifest.name).toBe(PACKAGE);
    expect(Object.keys(manifest.peerDependencies)).toEqual(['aws-cdk-lib', 'constructs']);
    expect(manifest.dependencies).not.toHaveProperty('aws-cdk-lib');
  });

  it('the bins ratchet and ratchet-send run from the package, with its dependencies only', () => {
    const manifest = JSON.parse(readFileSync(join(app, 'node_modules', PACKAGE, 'package.json'), 'utf8'));
    expect(manifest.bin).toEqual({ ratchet: 'bin/ratchet.mjs', 'ratchet-send': 'bin/send.mjs' });
    // What npm would install beside it: its dependencies (linked from this checkout), not its devDependencies.
    for (const name of Object.keys(manifest.dependencies)) {
      const link = join(app, 'node_modules', name);
      mkdirSync(resolve(link, '..'), { recursive: true });
      if (!existsSync(link)) symlinkSync(realpathSync(join(ROOT, 'node_modules', name)), link);
    }
    const bin = (file: string, ...args: string[]) =>
      execFileSync(process.execPath, [join(app, 'node_modules', PACKAGE, file), ...args], {
        cwd: app,
        encoding: 'utf8',
        env: { PATH: process.env.PATH, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
      });
    expect(bin(manifest.bin.ratchet, '--version').trim()).toBe(manifest.version);
    expect(bin(manifest.bin.ratchet, 'sync', '--help')).toContain('Usage: ratchet sync');
    expect(bin(manifest.bin['ratchet-send'], '--help')).toContain('Usage: send [options] <provider> <kind> <email>');
  }, 60_000);

  it("docs/cdk-construct.md's example type-checks against the shipped declarations and synthesizes", () => {
    const code = example('cdk-construct.md');
    expect(code).toContain(`from '${PACKAGE}/cdk'`);
    writeFileSync(join(app, 'construct-example.ts'), code);
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
      cwd: app,
      encoding: 'utf8',
    });
    const { template, out } = synth('construct-example.ts', code);
    expectPrebuiltAssets(template, out);
    const types = Object.values(template.Resources).map((r) => r.Type);
    expect(types, "front: 'function-url'").toContain('AWS::Lambda::Url');
    const tables = Object.values(template.Resources)
      .filter((r) => r.Type === 'AWS::DynamoDB::Table' || r.Type === 'AWS::DynamoDB::GlobalTable')
      .map((r) => r.Properties.TableName)
      .sort();
    expect(tables).toEqual(['acme-mail-inbox', 'acme-mail-reputation', 'acme-mail-suppressions']);
    // The sender the example grants: GetItem and BatchGetItem on the suppression table.
    const sender = Object.values(template.Resources).find(
      (r) => r.Type === 'AWS::IAM::Policy' && JSON.stringify(r.Properties.Roles).includes('SenderServiceRole'),
    );
    expect(JSON.stringify(sender?.Properties.PolicyDocument)).toContain('dynamodb:BatchGetItem');
    for (const dir of readdirSync(app).filter((f) => f.startsWith('cdk.out-')))
      rmSync(join(app, dir), { recursive: true, force: true });
  }, 300_000);

  it("docs/deploy.md's readConfig example takes the context keys and adds the outputs", () => {
    const code = example('deploy.md', 'In your own CDK app');
    expect(code).toContain('readConfig(stack.node)');
    const { template, out } = synth('context-example.ts', code, {
      front: 'function-url',
      resourcePrefix: 'ctx-mail',
      syncProviders: 'ses',
    });
    expectPrebuiltAssets(template, out);
    expect(Object.values(template.Resources).map((r) => r.Type)).toContain('AWS::Lambda::Url');
    expect(JSON.stringify(template.Resources)).toContain('ctx-mail-inbox');
    expect(Object.keys(template.Outputs ?? {})).toEqual(
      expect.arrayContaining([
        'ApiUrl',
        'SuppressionTableName',
        'SesQueueUrl',
        'SyncQueueUrl',
        'SyncDeadLetterQueueUrl',
      ]),
    );
    const descriptions = ratchetFunctions(template).map((r) => r.Properties.Description as string);
    expect(descriptions.some((d) => d.startsWith('Ratchet sync worker'))).toBe(true);
  }, 300_000);
});
