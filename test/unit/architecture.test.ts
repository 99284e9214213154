/**
 * Dependencies point one way: bin → lib → lambdas (handlers → adapters → core). Nothing under lambdas/
 * reaches up into lib/ or bin/, and the core does no I/O and knows no AWS SDK.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mts|cts|js|mjs)$/.test(entry.name) && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Every module specifier: static imports and re-exports (incl. `import type`), dynamic import(), require(). */
function specifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /\b(?:import|export)\s+(?:type\s+)?(?:[\w*{}\s,$]+\s+from\s+)?['"]([^'"]+)['"]/g,
    /\bimport\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
    /\brequire\s*\(\s*['"]([^'"]+)['"]\s*\)/g,
  ];
  for (const pattern of patterns) for (const match of source.matchAll(pattern)) out.push(match[1]!);
  return out;
}

/** Where a relative specifier lands, as a path from the repository root. */
function target(file: string, specifier: string): string {
  return specifier.startsWith('.') ? relative(ROOT, resolve(dirname(file), specifier)) : specifier;
}

const FORBIDDEN_IN_CORE = [
  /^@aws-sdk\//,
  /^aws-sdk(\/|$)/,
  /^@smithy\//,
  /^@aws-lambda-powertools\//,
  /^(node:)?(fs|fs\/promises|http|https|http2|dns|dns\/promises|child_process)$/,
];

function violations(dir: string, rule: (file: string, specifier: string) => boolean): string[] {
  return sourceFiles(join(ROOT, dir)).flatMap((file) =>
    specifiers(readFileSync(file, 'utf8'))
      .filter((specifier) => rule(file, specifier))
      .map((specifier) => `${relative(ROOT, file)} imports ${specifier}`),
  );
}

const upward = (file: string, specifier: string) => /^(lib|bin)(\/|$)/.test(target(file, specifier));
const impure = (_file: string, specifier: string) => FORBIDDEN_IN_CORE.some((pattern) => pattern.test(specifier));

describe('dependency direction', () => {
  it('finds every kind of import (the scanner itself)', () => {
    const sample = [
      "import { a } from '../../lib/definitions.js';",
      "import type { B } from '../lib/x.js';",
      "export { c } from './c.js';",
      "export * from './d.js';",
      "import './side-effect.js';",
      "const e = await import('node:fs');",
      "const f = require('node:http');",
      "import {\n  g,\n  h,\n} from '@aws-sdk/client-sqs';",
    ].join('\n');
    expect(specifiers(sample).sort()).toEqual(
      [
        '../../lib/definitions.js',
        '../lib/x.js',
        './c.js',
        './d.js',
        './side-effect.js',
        'node:fs',
        'node:http',
        '@aws-sdk/client-sqs',
      ].sort(),
    );
  });

  it('scans the real tree (so an empty result below means something)', () => {
    expect(sourceFiles(join(ROOT, 'lambdas')).length).toBeGreaterThan(40);
    expect(sourceFiles(join(ROOT, 'lambdas/core')).length).toBeGreaterThan(20);
  });

  it('nothing under lambdas/ imports from lib/ or bin/', () => {
    expect(violations('lambdas', upward)).toEqual([]);
  });

  it('nothing under lambdas/core imports an AWS SDK or node:fs/http/https/dns/child_process', () => {
    expect(violations('lambdas/core', impure)).toEqual([]);
  });

  it('the rules flag what they must', () => {
    const file = join(ROOT, 'lambdas/adapters/x.ts');
    expect(upward(file, '../../lib/definitions.js')).toBe(true);
    expect(upward(file, '../../bin/local.js')).toBe(true);
    expect(upward(file, './tables.js')).toBe(false);
    expect(upward(file, '../core/library.js')).toBe(false);
    for (const specifier of [
      '@aws-sdk/client-dynamodb',
      'node:fs',
      'fs',
      'node:fs/promises',
      'https',
      'node:dns',
      'node:child_process',
    ]) {
      expect(impure(file, specifier), specifier).toBe(true);
    }
    for (const specifier of ['node:crypto', 'node:net', './event.js'])
      expect(impure(file, specifier), specifier).toBe(false);
  });
});
