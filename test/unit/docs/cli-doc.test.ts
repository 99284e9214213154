/** docs/cli.md's "Every command" table has a row for every command `npx ratchet` has, and no other. */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { DEAD_DUE_MS } from '../../../lambdas/core/sync/ledger.js';
import { SYNC_OFF_ON_AWS } from '../../../lib/cli/commands/sync.js';
import { PEEK_MAX } from '../../../lib/cli/commands/sync-status.js';
import { Context } from '../../../lib/cli/context.js';
import { PARKED_MARKER } from '../../../lib/cli/io.js';
import { ratchetProgram } from '../../../lib/cli/ratchet.js';

const doc = readFileSync(new URL('../../../docs/cli.md', import.meta.url), 'utf8');

function leaves(command: Command, path: string[] = []): string[] {
  if (command.commands.length === 0) return [path.join(' ')];
  return command.commands.flatMap((sub) => leaves(sub, [...path, sub.name()]));
}

describe('docs/cli.md', () => {
  it('lists every ratchet command in its table', () => {
    const program = ratchetProgram(new Context({}, { out: () => {}, err: () => {}, progressTty: false }), { code: 0 });
    const table = doc.slice(doc.indexOf('## Every command'), doc.indexOf('## Progress'));
    const rows = [...table.matchAll(/^\| `npx ratchet ([a-z-]+(?: [a-z-]+)?)/gm)].map((m) => m[1]);
    expect(rows.sort()).toEqual(leaves(program).sort());
  });

  it('a setting set wrong exits 2: in the exit codes, and in every sync command and fast-path write', () => {
    const codes = doc.slice(doc.indexOf('## Exit codes'), doc.indexOf('## Every command'));
    expect(codes).toMatch(/^\| `2` \| usage or input error: .*a setting set wrong .*; nothing is written \|$/m);
    const table = doc.slice(doc.indexOf('## Every command'), doc.indexOf('## Progress'));
    for (const command of [
      'sync status',
      'sync retry',
      'sync reconcile',
      'suppressions add',
      'suppressions reactivate',
      'suppressions import',
    ]) {
      const row = table.split('\n').find((line) => new RegExp(`^\\| \`npx ratchet ${command}[ \`]`).test(line)) ?? '';
      const exit = row.split(' | ').at(-1) ?? '';
      expect(exit, command).toMatch(/\b2 \([^)]*setting set wrong/);
    }
  });

  it('on AWS the providers come from the stack output SyncProviders, as the CLI says', () => {
    const fix = 'set SYNC_PROVIDERS from the stack output SyncProviders';
    expect(SYNC_OFF_ON_AWS).toContain(fix);
    expect(doc.replace(/`/g, '').replace(/\s+/g, ' ')).toContain(fix);
  });

  it("sync status's bound on the dead letters it counts", () => {
    expect(doc).toContain(`counts at most the first ${PEEK_MAX.toLocaleString('en-US')} dead letters`);
  });

  it("the parked marker's stored value and its words are the code's", () => {
    const times = doc.slice(doc.indexOf('### Times in records'), doc.indexOf('## Progress'));
    expect(times).toContain(`| \`${DEAD_DUE_MS}\` (parked`);
    expect(times).toContain(`| \`${PARKED_MARKER}\` |`);
  });
});
