/**
 * Renders the environment variable table of docs/configuration.md from the declarations the code
 * parses with, so the two cannot disagree (test/unit/docs/env-table.test.ts fails when they do):
 *
 * - the runtime's own variables: RUNTIME_VARIABLE, with NUMBER_VARIABLES / NAME_VARIABLES rules and
 *   RUNTIME_VARIABLE_DOCS (lambdas/adapters/environment.ts);
 * - every provider in the registry, and the unsubscribe provider: credentials, secret ARN, settings;
 * - the core modules' own settings (POLICY_SETTINGS, PAGE_SETTINGS);
 * - sync's variables (lambdas/adapters/wiring/sync-variables.ts);
 * - the operator tools' variables (lib/cli/variables.ts).
 *
 * `npm run docs:env` rewrites the table, and docs/deploy.md's context table (tools/context-table.ts);
 * `npm run docs:env -- --check` exits 1 when either is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  NAME_DEFAULTS,
  NAME_VARIABLES,
  NUMBER_VARIABLES,
  RUNTIME_VARIABLE,
  RUNTIME_VARIABLE_DOCS,
  type VariableDoc,
  type VariableScope,
} from '../lambdas/adapters/environment.js';
import { syncVariableDocs } from '../lambdas/adapters/wiring/sync-variables.js';
import type { ProviderDefinition } from '../lambdas/core/provider.js';
import { PROVIDERS } from '../lambdas/core/providers/index.js';
import { REPUTATION_SETTINGS } from '../lambdas/core/reputation/settings.js';
import type { SettingDeclaration } from '../lambdas/core/settings.js';
import { POLICY_SETTINGS } from '../lambdas/core/suppression/policy.js';
import { UNSUBSCRIBE_PROVIDER } from '../lambdas/core/unsubscribe/provider.js';
import { PAGE_SETTINGS } from '../lambdas/core/unsubscribe/settings.js';
import { OPERATOR_VARIABLE_DOCS } from '../lib/cli/variables.js';
import { contextKeyRows } from '../lib/context-keys.js';
import { CONTEXT_MARKERS, DEPLOY_DOC, renderContextTable } from './context-table.js';

export const TABLE_START = '<!-- env-table:start -->';
export const TABLE_END = '<!-- env-table:end -->';
export const CONFIGURATION_DOC = resolve(import.meta.dirname, '..', 'docs', 'configuration.md');

export interface VariableRow {
  name: string;
  default: string;
  accepts: string;
  where: string;
  describe: string;
}

const WHERE: Record<VariableScope, string> = { local: 'local', aws: 'AWS', both: 'both' };
/** A setting's `describe` names its default in a trailing `(default …)`. */
const TRAILING_DEFAULT = /\s*\(default:?\s+(.+)\)$/;

function runtimeRows(): VariableRow[] {
  const numbers: Record<string, { default: number; expected: string }> = NUMBER_VARIABLES;
  const names: Record<string, { expected: string }> = NAME_VARIABLES;
  const nameDefaults: Record<string, string> = NAME_DEFAULTS;
  const docs: Partial<Record<string, VariableDoc>> = RUNTIME_VARIABLE_DOCS;
  return Object.values(RUNTIME_VARIABLE).map((name) => {
    const doc = docs[name];
    const rule = numbers[name] ?? names[name];
    const fallback = numbers[name]?.default ?? nameDefaults[name];
    return {
      name,
      default: fallback !== undefined ? `\`${fallback}\`` : (doc?.default ?? ''),
      accepts: rule?.expected ?? doc?.expected ?? '',
      where: doc ? WHERE[doc.applies] : '',
      describe: doc?.describe ?? '',
    };
  });
}

function settingRow(setting: SettingDeclaration): VariableRow {
  const match = TRAILING_DEFAULT.exec(setting.describe);
  return {
    name: setting.variable,
    default: match?.[1] ?? '',
    accepts: '',
    where: setting.contextKey
      ? `both (CDK context \`${setting.contextKey}\`)`
      : 'local (a deployment keeps the default)',
    describe: match ? setting.describe.slice(0, match.index) : setting.describe,
  };
}

function providerRows(provider: ProviderDefinition, localDefault: string): VariableRow[] {
  const secret = provider.secretArnVariable;
  const rows: VariableRow[] = [
    {
      name: provider.credentialsVariable,
      default: localDefault,
      accepts: 'a comma-separated list',
      where: secret ? 'local' : 'both',
      describe: `${provider.describeCredentials ?? `The \`${provider.name}\` credentials`}; every entry verifies, so old and new overlap during a rotation${secret ? ` (on AWS, the secret named by \`${secret}\`)` : ''}`,
    },
  ];
  if (secret) {
    rows.push({
      name: secret,
      default: '',
      accepts: 'a Secrets Manager ARN',
      where: 'AWS',
      describe: `The secret \`<prefix>/${provider.name}\` holding the \`${provider.name}\` credentials (a JSON array of strings, or a comma-separated string); set by the stack`,
    });
  }
  return [...rows, ...provider.settings.map(settingRow)];
}

function syncRows(): VariableRow[] {
  return syncVariableDocs().map(({ name, doc, where }) => ({
    name,
    default: doc.default ?? '',
    accepts: doc.expected ?? '',
    where: where ?? WHERE[doc.applies],
    describe: doc.describe,
  }));
}

function operatorRows(): VariableRow[] {
  return Object.entries(OPERATOR_VARIABLE_DOCS).map(([name, doc]) => ({
    name,
    default: doc.default ?? '',
    accepts: doc.expected ?? '',
    where: WHERE[doc.applies],
    describe: doc.describe,
  }));
}

/** Every declared variable once, in declaration order: runtime, providers, core settings, sync, operator tools. */
export function variableRows(): VariableRow[] {
  const rows = [
    ...runtimeRows(),
    ...PROVIDERS.flatMap((p) => providerRows(p, 'locally: demo credentials')),
    ...providerRows(UNSUBSCRIBE_PROVIDER, 'locally: a demo key generated once in `.data/unsubscribe-demo-key`'),
    ...POLICY_SETTINGS.map(settingRow),
    ...PAGE_SETTINGS.map(settingRow),
    ...REPUTATION_SETTINGS.map(settingRow),
    ...syncRows(),
    ...operatorRows(),
  ];
  const seen = new Set<string>();
  return rows.filter((row) => !seen.has(row.name) && seen.add(row.name));
}

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderEnvTable(rows: readonly VariableRow[] = variableRows()): string {
  const lines = [
    '| Variable | Default | Accepts | Where | Description |',
    '|---|---|---|---|---|',
    ...rows.map(
      (r) => `| \`${r.name}\` | ${cell(r.default)} | ${cell(r.accepts)} | ${cell(r.where)} | ${cell(r.describe)} |`,
    ),
  ];
  return lines.join('\n');
}

/** `document` with the text between the markers replaced by `table`; throws when a marker is missing. */
export function withTable(document: string, table: string, markers = { start: TABLE_START, end: TABLE_END }): string {
  const start = document.indexOf(markers.start);
  const end = document.indexOf(markers.end);
  if (start < 0 || end < start) throw new Error(`${markers.start} … ${markers.end} not found`);
  return `${document.slice(0, start + markers.start.length)}\n${table}\n${document.slice(end)}`;
}

function main(argv: readonly string[]): number {
  if (argv.includes('--help')) {
    console.log(
      'usage: npm run docs:env [-- --check]\n  rewrites the variable table in docs/configuration.md and the context table in docs/deploy.md; --check exits 1 when one is stale',
    );
    return 0;
  }
  const documents = [
    {
      path: CONFIGURATION_DOC,
      table: renderEnvTable(),
      markers: { start: TABLE_START, end: TABLE_END },
      what: `${variableRows().length} variables`,
    },
    {
      path: DEPLOY_DOC,
      table: renderContextTable(),
      markers: CONTEXT_MARKERS,
      what: `${contextKeyRows().length} context keys`,
    },
  ];
  let stale = 0;
  for (const { path, table, markers, what } of documents) {
    const current = readFileSync(path, 'utf8');
    const next = withTable(current, table, markers);
    const name = `docs/${basename(path)}`;
    if (argv.includes('--check')) {
      if (next !== current) {
        console.error(
          `${name}: the table between ${markers.start} and ${markers.end} is stale: run \`npm run docs:env\``,
        );
        stale++;
      }
      continue;
    }
    if (next !== current) writeFileSync(path, next);
    console.log(`${name}: ${what}`);
  }
  return stale > 0 ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href)
  process.exitCode = main(process.argv.slice(2));
