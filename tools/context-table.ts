/**
 * Renders the context table of docs/deploy.md from the declarations readConfig reads with
 * (lib/context-keys.ts), so a key added, renamed or redescribed there reaches the doc, and
 * test/unit/docs/deploy-docs.test.ts fails while the doc is stale.
 *
 * `npm run docs:env` rewrites it, with the variable table (tools/env-table.ts).
 */
import { resolve } from 'node:path';
import { type ContextKeyRow, contextKeyRows } from '../lib/context-keys.js';

export const CONTEXT_MARKERS = { start: '<!-- context-table:start -->', end: '<!-- context-table:end -->' };
export const DEPLOY_DOC = resolve(import.meta.dirname, '..', 'docs', 'deploy.md');

const cell = (text: string) => text.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function renderContextTable(rows: readonly ContextKeyRow[] = contextKeyRows()): string {
  return [
    '| Key | Meaning | Default |',
    '|---|---|---|',
    ...rows.map((r) => `| \`${r.key}\` | ${cell(r.describe)} | ${cell(r.default)} |`),
  ].join('\n');
}
