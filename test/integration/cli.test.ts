/** The operator CLI against a real local stack: records, audited manual actions, inbox rows and replay. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ratchet, startTestStack, type TestStack } from './harness.js';

describe('ratchet CLI', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  const run = (...argv: string[]) => ratchet(stack.cliEnv({ USER: 'tester' }), ...argv);

  it('gets a record as JSON, and says "no record: may send" (exit 0) for an unknown address', async () => {
    await stack.post('ses', stack.sign('ses', 'complaint', 'cli@example.com'));
    await stack.drain();
    const got = await run('suppressions', 'get', ' CLI@Example.com ');
    expect(got.code).toBe(0);
    expect(JSON.parse(got.out)).toMatchObject({ email: 'cli@example.com', status: 'suppressed', reason: 'complaint' });
    expect(await run('suppressions', 'get', 'nobody@example.com')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^no record: may send \(nobody@example\.com, /),
    });
    expect(await run('suppressions', 'get', 'nobody@example.com', '--json')).toMatchObject({ code: 0, out: 'null' });
  });

  it('prints times as ISO 8601, and as stored epoch ms with --json', async () => {
    const human = JSON.parse((await run('suppressions', 'get', 'cli@example.com')).out);
    const raw = JSON.parse((await run('suppressions', 'get', 'cli@example.com', '--json')).out);
    expect(typeof raw.suppressedAt).toBe('number');
    expect(human.suppressedAt).toBe(new Date(raw.suppressedAt).toISOString());
    expect(human.updatedAt).toBe(new Date(raw.updatedAt).toISOString());
    // The sync outbox marker (written whether or not sync is on) is a time too, for people.
    expect(typeof raw.syncDue).toBe('number');
    expect(human.syncDue).toBe(new Date(raw.syncDue).toISOString());
    const evidence = Object.values(human.evidence) as Array<{ occurredAt: string }>;
    expect(evidence[0]!.occurredAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const line = JSON.parse((await run('suppressions', 'list', '--json')).out.split('\n')[0]!);
    expect(typeof line.lastEventAt).toBe('number');
  });

  it('reactivates only with a reason, and records who did it', async () => {
    const missing = await run('suppressions', 'reactivate', 'cli@example.com');
    expect(missing.code).toBe(2);
    expect(missing.err).toBe("error: required option '--reason <text>' not specified");
    const done = await run('suppressions', 'reactivate', 'cli@example.com', '--reason', 'confirmed by phone');
    expect(done.code).toBe(0);
    const record = JSON.parse((await run('suppressions', 'get', 'cli@example.com')).out);
    expect(record.status).toBe('active');
    expect(record.audit).toEqual([
      expect.objectContaining({ action: 'reactivate', actor: 'tester', reason: 'confirmed by phone' }),
    ]);
  });

  it('adds a manual suppression and lists by status', async () => {
    expect(
      (await run('suppressions', 'add', 'manual@example.com', '--reason', 'asked by legal', '--actor', 'ops')).code,
    ).toBe(0);
    const listed = (await run('suppressions', 'list', '--status', 'suppressed')).out
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(listed.map((r) => r.email)).toContain('manual@example.com');
    expect(listed.map((r) => r.email)).not.toContain('cli@example.com');
    expect(listed.find((r) => r.email === 'manual@example.com')).toMatchObject({ reason: 'manual' });
  });

  it('opts one address out of one topic and back in, audited, leaving status alone; lists by topic', async () => {
    const out = await run(
      'suppressions',
      'add',
      'topic@example.com',
      '--topic',
      'newsletter',
      '--reason',
      'asked by phone',
      '--actor',
      'ops',
    );
    expect(out.code).toBe(0);
    let record = JSON.parse((await run('suppressions', 'get', 'topic@example.com')).out);
    expect(record).toMatchObject({
      status: 'active',
      transactionalStatus: 'active',
      topics: { newsletter: { status: 'unsubscribed' } },
    });
    expect(record.audit).toEqual([
      expect.objectContaining({ action: 'suppress', actor: 'ops', reason: 'asked by phone', topic: 'newsletter' }),
    ]);
    const listed = (await run('suppressions', 'list', '--topic', 'newsletter')).out
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l));
    expect(listed.map((r) => r.email)).toEqual(['topic@example.com']);
    expect((await run('suppressions', 'list', '--topic', 'other')).out).toBe('');

    expect(
      (
        await run(
          'suppressions',
          'reactivate',
          'topic@example.com',
          '--topic',
          'newsletter',
          '--reason',
          'changed mind',
        )
      ).code,
    ).toBe(0);
    record = JSON.parse((await run('suppressions', 'get', 'topic@example.com')).out);
    expect(record.topics.newsletter.status).toBe('subscribed');
    expect(record.status).toBe('active');
    expect((await run('suppressions', 'list', '--topic', 'newsletter')).out).toBe('');
    expect(
      (await run('suppressions', 'add', 'topic@example.com', '--topic', 'not a topic!', '--reason', 'x')).code,
    ).toBe(1);
  });

  it('shows an inbox row with its compressed raw payload decompressed, byte for byte', async () => {
    const request = stack.sign('ses', 'hard_bounce', 'raw@example.com');
    await stack.post('ses', request);
    const row = (await stack.inboxRows()).find((r) => r.event.recipient === 'raw@example.com')!;
    expect(row.item.body).toBeInstanceOf(Uint8Array);
    const shown = await run('inbox', 'get', 'ses', row.event.eventId);
    expect(shown.code).toBe(0);
    expect(JSON.parse(shown.out).raw).toBe(request.body);
  });

  it('replays a stored event onto the queue, which the consumer applies idempotently', async () => {
    const row = (await stack.inboxRows()).find((r) => r.event.recipient === 'raw@example.com')!;
    await stack.drain();
    const before = await stack.record('raw@example.com');
    expect((await run('inbox', 'replay', 'ses', row.event.eventId)).code).toBe(0);
    expect(await stack.drain()).toBe(1);
    const { version: _v, updatedAt: _u, ...after } = (await stack.record('raw@example.com'))!;
    const { version: _v2, updatedAt: _u2, ...beforeRecord } = before!;
    expect(after).toEqual(beforeRecord);
  });
});
