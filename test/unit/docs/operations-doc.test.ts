/** docs/operations.md quotes the dead-letter readers' long poll from where it is defined. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DEAD_LETTER_LONG_POLL_SECONDS } from '../../../lambdas/adapters/sqs-dead-letters.js';

const doc = readFileSync(new URL('../../../docs/operations.md', import.meta.url), 'utf8').replace(/\s+/g, ' ');

describe('docs/operations.md', () => {
  it("the dead-letter readers' long poll, and what an empty queue costs", () => {
    const seconds = DEAD_LETTER_LONG_POLL_SECONDS === 1 ? '1 second' : `${DEAD_LETTER_LONG_POLL_SECONDS} seconds`;
    expect(doc).toContain(`is a long poll of ${seconds} (\`DEAD_LETTER_LONG_POLL_SECONDS\`)`);
    expect(doc).toContain(`(so an empty queue costs ${DEAD_LETTER_LONG_POLL_SECONDS === 1 ? 'one second' : seconds})`);
  });
});
