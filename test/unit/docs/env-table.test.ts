/**
 * docs/configuration.md's variable table is generated from the declarations (tools/env-table.ts), and
 * must equal what the generator renders now: a variable declared, renamed or redescribed without
 * `npm run docs:env` fails here.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { NAME_VARIABLES, NUMBER_VARIABLES, RUNTIME_VARIABLE } from '../../../lambdas/adapters/environment.js';
import { SYNC_VARIABLES as SYNC_CONFIG_VARIABLES, SYNC_DEFAULT_URLS } from '../../../lambdas/adapters/sync/config.js';
import { SYNC_KEY_VARIABLE, syncSecretArnVariable } from '../../../lambdas/adapters/wiring/sync-secrets.js';
import { syncVariableDocs } from '../../../lambdas/adapters/wiring/sync-variables.js';
import { PROVIDERS } from '../../../lambdas/core/providers/index.js';
import { REPUTATION_SETTINGS } from '../../../lambdas/core/reputation/settings.js';
import { POLICY_SETTINGS } from '../../../lambdas/core/suppression/policy.js';
import {
  DEFAULT_RETRY_HORIZON_SECONDS,
  SYNC_DEFAULT_LIMITS,
  SYNC_RULES,
  SYNC_VARIABLES,
} from '../../../lambdas/core/sync/settings.js';
import { SYNC_PROVIDER_NAMES } from '../../../lambdas/core/sync/target.js';
import { UNSUBSCRIBE_PROVIDER } from '../../../lambdas/core/unsubscribe/provider.js';
import { PAGE_SETTINGS } from '../../../lambdas/core/unsubscribe/settings.js';
import { OPERATOR_VARIABLE_DOCS } from '../../../lib/cli/variables.js';
import {
  CONFIGURATION_DOC,
  renderEnvTable,
  TABLE_END,
  TABLE_START,
  variableRows,
  withTable,
} from '../../../tools/env-table.js';

const ROOT = resolve(import.meta.dirname, '../../..');

function committedTable(): string {
  const doc = readFileSync(CONFIGURATION_DOC, 'utf8');
  const start = doc.indexOf(TABLE_START);
  const end = doc.indexOf(TABLE_END);
  expect(start, 'the start marker').toBeGreaterThanOrEqual(0);
  expect(end, 'the end marker, after the start').toBeGreaterThan(start);
  return doc.slice(start + TABLE_START.length, end).trim();
}

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

describe('docs/configuration.md variable table', () => {
  it('is exactly what `npm run docs:env` renders from the declarations', () => {
    expect(committedTable(), 'stale: run `npm run docs:env`').toBe(renderEnvTable());
  });

  it('lists every declared variable once', () => {
    const declared = [
      ...Object.values(RUNTIME_VARIABLE),
      ...[...PROVIDERS, UNSUBSCRIBE_PROVIDER].flatMap((p) => [
        p.credentialsVariable,
        ...(p.secretArnVariable ? [p.secretArnVariable] : []),
        ...p.settings.map((s) => s.variable),
      ]),
      ...POLICY_SETTINGS.map((s) => s.variable),
      ...PAGE_SETTINGS.map((s) => s.variable),
      ...REPUTATION_SETTINGS.map((s) => s.variable),
      ...syncVariableDocs().map((v) => v.name),
      ...Object.keys(OPERATOR_VARIABLE_DOCS),
    ];
    const names = variableRows().map((r) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect([...names].sort()).toEqual([...new Set(declared)].sort());
  });

  it('gives every variable a description and where it applies', () => {
    for (const row of variableRows()) {
      expect(
        row.describe.length,
        `${row.name}: add a describe (lambdas/adapters/environment.ts RUNTIME_VARIABLE_DOCS)`,
      ).toBeGreaterThan(10);
      expect(row.where, row.name).toMatch(/^(local|AWS|both)\b/);
    }
  });

  it("takes defaults and accepted values from the parsers' own rules", () => {
    const rows = new Map(variableRows().map((r) => [r.name, r]));
    for (const [name, rule] of Object.entries(NUMBER_VARIABLES)) {
      expect(rows.get(name)).toMatchObject({ default: `\`${rule.default}\``, accepts: rule.expected });
    }
    for (const [name, rule] of Object.entries(NAME_VARIABLES)) expect(rows.get(name)?.accepts).toBe(rule.expected);
    expect(rows.get('LOG_LEVEL')?.accepts).toBe('DEBUG, INFO, WARN, ERROR, SILENT, CRITICAL, TRACE (any case)');
    // A setting's trailing "(default …)" is its default column, and leaves the description.
    expect(rows.get('MAILGUN_TOLERANCE_SECONDS')).toMatchObject({
      default: '32400, 9 h',
      where: 'local (a deployment keeps the default)',
    });
    expect(rows.get('MAILGUN_TOLERANCE_SECONDS')?.describe).not.toContain('default');
    expect(rows.get('POSTMARK_ALLOWED_IPS')).toMatchObject({
      default: 'no IP check',
      where: 'both (CDK context `postmarkAllowedIps`)',
    });
  });

  it('lists every variable sync reads, with the defaults and rules its parsers use', () => {
    const rows = new Map(variableRows().map((r) => [r.name, r]));
    const read = [
      ...SYNC_CONFIG_VARIABLES,
      SYNC_VARIABLES.retryHorizonSeconds,
      ...SYNC_PROVIDER_NAMES.flatMap((p) => [SYNC_VARIABLES.concurrency(p), SYNC_VARIABLES.rate(p)]),
      ...Object.values(SYNC_KEY_VARIABLE),
      ...SYNC_PROVIDER_NAMES.filter((p) => SYNC_KEY_VARIABLE[p]).map(syncSecretArnVariable),
    ];
    for (const name of read) expect(rows.has(name), `${name} is not in docs/configuration.md`).toBe(true);
    expect(rows.get('SYNC_PROVIDERS')?.where).toBe('both (CDK context `syncProviders`)');
    expect(rows.get('SYNC_RETRY_SECONDS')).toMatchObject({
      default: `\`${DEFAULT_RETRY_HORIZON_SECONDS}\``,
      accepts: SYNC_RULES.retryHorizonSeconds.expected,
    });
    for (const p of SYNC_PROVIDER_NAMES) {
      expect(rows.get(SYNC_VARIABLES.rate(p))?.default).toBe(`\`${SYNC_DEFAULT_LIMITS[p].rate}\``);
      expect(rows.get(SYNC_VARIABLES.concurrency(p))?.default).toBe(`\`${SYNC_DEFAULT_LIMITS[p].concurrency}\``);
      // A deployment sets them too, from the stack-wide context keys.
      expect(rows.get(SYNC_VARIABLES.rate(p))?.where).toMatch(/^both \(CDK context `syncRates`/);
      expect(rows.get(SYNC_VARIABLES.concurrency(p))?.where).toMatch(/^both \(CDK context `syncConcurrency`/);
    }
    expect(rows.get('SENDGRID_API_URL')?.default).toBe(`\`${SYNC_DEFAULT_URLS.sendgrid}\``);
  });

  it('names only operator variables the code still reads', () => {
    const code = [...sources(join(ROOT, 'lib')), ...sources(join(ROOT, 'lambdas'))]
      .filter((path) => !path.endsWith(join('lib', 'cli', 'variables.ts')))
      .map((path) => readFileSync(path, 'utf8'))
      .join('\n');
    for (const name of Object.keys(OPERATOR_VARIABLE_DOCS)) expect(code, name).toMatch(new RegExp(`\\b${name}\\b`));
  });

  it('escapes a pipe inside a cell, so a row keeps its five columns', () => {
    const table = renderEnvTable([{ name: 'X_Y', default: 'a|b', accepts: '', where: 'local', describe: 'one | two' }]);
    expect(table.split('\n')[2]).toBe('| `X_Y` | a\\|b |  | local | one \\| two |');
  });

  it('replaces only what is between the markers, and refuses a document without them', () => {
    const doc = `intro\n${TABLE_START}\nold\n${TABLE_END}\noutro\n`;
    expect(withTable(doc, 'new')).toBe(`intro\n${TABLE_START}\nnew\n${TABLE_END}\noutro\n`);
    expect(() => withTable('no markers', 'new')).toThrow(/env-table:start/);
    expect(() => withTable(`${TABLE_END}\n${TABLE_START}`, 'new')).toThrow(/not found/);
  });
});
