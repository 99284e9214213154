/** docs/console.md quotes the console's limits: each from lib/definitions.ts, so a changed limit fails here until the doc follows. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REASON_MAX } from '../../../lib/console/address-actions.js';
import { CONSOLE } from '../../../lib/definitions.js';

const doc = readFileSync(resolve(import.meta.dirname, '../../../docs/console.md'), 'utf8');

describe('docs/console.md', () => {
  it('quotes the limits the console enforces', () => {
    expect(doc).toContain(`A page holds ${CONSOLE.pageSize} records`);
    expect(doc).toContain(`fewer than ${CONSOLE.pageSize} records`);
    expect(doc).toContain(`reads for more than ${CONSOLE.pageDeadlineMs / 1000} s`);
    expect(doc).toContain(`At most ${CONSOLE.bulkMax.toLocaleString('en-US')} records per`);
    expect(doc).toContain(`${CONSOLE.bulkConcurrency} guarded writes at a time`);
    expect(doc).toContain(`Counting stops\n  after ${CONSOLE.scanDeadlineMs / 1000} s`);
    expect(doc).toContain(`stopped\n  after ${CONSOLE.scanDeadlineMs / 1000} s`);
    expect(doc).toContain(`at most ${REASON_MAX} characters`);
  });

  it('embeds a screenshot of every page at desktop width and the main ones at phone width', () => {
    for (const name of ['address', 'address-confirm', 'lists', 'reputation', 'reputation-sender', 'health'])
      expect(doc).toContain(`(console/${name}-desktop.png)`);
    for (const name of ['address', 'lists', 'health']) expect(doc).toContain(`src="console/${name}-phone.png"`);
  });
});
