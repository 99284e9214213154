/**
 * The local inbox stream hands full batches to the counter by itself only once started (npm start's
 * background work); a hand-driven runtime (tests, the bench) counts when it flushes, so counting never
 * runs in the middle of what a bench section times, as on AWS where the counter is a function of its own.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { InboxStreamRecord } from '../../../lambdas/adapters/inbox-stream.js';
import { LocalInboxStream } from '../../../lib/local/inbox-stream.js';

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

let stream: LocalInboxStream | undefined;
afterEach(async () => {
  await stream?.stop();
  stream = undefined;
});

/** A stream of batches of `batchSize`, and the batches its handler was given (their rows' keys). */
function streamOf(batchSize: number) {
  const batches: string[][] = [];
  stream = new LocalInboxStream({
    batchSize,
    // Longer than any test: only a full batch or a flush hands records over.
    flushMs: 3_600_000,
    log: silent,
    handler: async (event: { Records?: InboxStreamRecord[] }) => {
      batches.push((event.Records ?? []).map((record) => record.dynamodb?.NewImage?.pk?.S ?? '?'));
      return { state: {} };
    },
  });
  return { stream, batches };
}

/** Lets a flush started by `record` run to its end. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the local inbox stream', () => {
  it('only buffers before it is started, however full: flush hands it over in batches', async () => {
    const { stream, batches } = streamOf(2);
    for (const pk of ['a', 'b', 'c', 'd', 'e']) stream.record({ pk: { S: pk } });
    await settle();
    expect(batches).toEqual([]);

    await stream.flush();
    expect(batches).toEqual([['a', 'b'], ['c', 'd'], ['e']]);
  });

  it('once started, hands over each full batch without being asked', async () => {
    const { stream, batches } = streamOf(2);
    stream.start();
    for (const pk of ['a', 'b']) stream.record({ pk: { S: pk } });
    await settle();
    expect(batches).toEqual([['a', 'b']]);

    stream.record({ pk: { S: 'c' } });
    await settle();
    expect(batches).toEqual([['a', 'b']]);
    await stream.flush();
    expect(batches).toEqual([['a', 'b'], ['c']]);
  });
});
