/**
 * Exit codes a script can use, per command (0 success, 1 failure, 2 usage or input error), and the
 * ids a newcomer needs: `send` prints the event id and inbox key it posted, `inbox list` shows the
 * newest rows, and an answer that ignored events says why. Against a real local stack.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_OFF } from '../../lib/cli/commands/sync.js';
import { sendCommand } from '../../lib/cli/send.js';
import { writeState } from '../../lib/local/state.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

describe('CLI exit codes and finding events', () => {
  let stack: TestStack;
  const dirs: string[] = [];
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(async () => {
    await stack?.stop();
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const run = (...argv: string[]) => ratchet(stack.cliEnv({ USER: 'tester' }), ...argv);
  const send = async (
    argv: string[],
    env: Record<string, string> = { PORT: String(stack.port), RATCHET_DATA_DIR: stack.dataDir },
  ) => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await sendCommand(argv, env, { out: (l) => out.push(l), err: (l) => err.push(l), progressTty: false });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  it.each([
    [['suppressions', 'get', 'NotAnEmail'], 'error: "NotAnEmail" is not an email address'],
    [['suppressions', 'add', 'not-an-email', '--reason', 'x'], 'error: "not-an-email" is not an email address'],
    [['suppressions', 'reactivate', '@example.com', '--reason', 'x'], 'error: "@example.com" is not an email address'],
    [['unsubscribe-link', 'nobody'], 'error: "nobody" is not an email address'],
    [
      ['inbox', 'get', 'mailchimp', 'abc'],
      expect.stringMatching(/^error: unknown provider "mailchimp": one of ses, sendgrid, /),
    ],
    [['inbox', 'replay', 'mailchimp', 'abc'], expect.stringMatching(/^error: unknown provider "mailchimp"/)],
    [['inbox', 'list', '--provider', 'mailchimp'], expect.stringMatching(/^error: unknown provider "mailchimp"/)],
    [
      ['inbox', 'list', '--limit', '0'],
      "error: option '--limit <n>' argument '0' is invalid. must be a whole number from 1 to 999999",
    ],
    [
      ['inbox', 'list', '--since', 'yesterday'],
      expect.stringMatching(
        /^error: option '--since <time>' argument 'yesterday' is invalid\. must be an ISO 8601 time/,
      ),
    ],
    [
      ['suppressions', 'import', 'x.csv', '--format', 'mailchimp'],
      expect.stringMatching(/^error: option '--format <format>' argument 'mailchimp' is invalid/),
    ],
    [
      ['suppressions', 'import', 'x.csv', '--format', 'csv', '--dates', 'never'],
      expect.stringMatching(/^error: option '--dates <source>' argument 'never' is invalid/),
    ],
  ])('ratchet %j exits 2 with one line, nothing on stdout', async (argv, message) => {
    const result = await run(...argv);
    expect(result).toEqual({ code: 2, out: '', err: message });
  });

  it('suppressions get: a record exits 0; no record exits 0 and says so; an unreachable target exits 1', async () => {
    expect((await run('suppressions', 'add', 'held@example.com', '--reason', 'test')).code).toBe(0);
    expect(JSON.parse((await run('suppressions', 'get', 'held@example.com', '--json')).out)).toMatchObject({
      status: 'suppressed',
    });
    expect(await run('suppressions', 'get', 'free@example.com')).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^no record: may send \(free@example\.com, /),
      err: '',
    });
    expect(await run('suppressions', 'get', 'free@example.com', '--json')).toEqual({ code: 0, out: 'null', err: '' });
    const down = await ratchet(
      { DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', RATCHET_DATA_DIR: stack.dataDir },
      'suppressions',
      'get',
      'free@example.com',
    );
    expect(down.code).toBe(1);
  });

  it('reactivate without --actor or $USER is audited as the OS account', async () => {
    const { USER: _user, ...env } = stack.cliEnv();
    expect((await ratchet(env, 'suppressions', 'reactivate', 'held@example.com', '--reason', 'asked')).code).toBe(0);
    const record = JSON.parse((await run('suppressions', 'get', 'held@example.com')).out);
    expect(record.audit.at(-1)).toMatchObject({ action: 'reactivate', actor: userInfo().username, reason: 'asked' });
  });

  it('send refuses a malformed address with exit 2, and posts nothing', async () => {
    const before = (await stack.inboxRows()).length;
    expect(await send(['ses', 'bounce', 'not-an-email'])).toEqual({
      code: 2,
      out: '',
      err: 'error: "not-an-email" is not an email address',
    });
    expect((await stack.inboxRows()).length).toBe(before);
  });

  it('send prints the event id and inbox key; inbox get takes them; inbox list shows the newest first', async () => {
    const first = await send(['sendgrid', 'bounce', 'first@example.com']);
    expect(first.code).toBe(0);
    const second = await send(['ses', 'bounce', 'second@example.com']);
    expect(second.code).toBe(0);
    const [answer, eventLine] = second.out.split('\n');
    expect(answer).toMatch(
      new RegExp(`^POST http://localhost:${stack.port}/webhooks/ses → 200 \\{"ok":true,"received":1,"admitted":1,`),
    );
    const match = /^event (\S+) \(hard_bounce\): inbox key (ses#\S+)$/.exec(eventLine ?? '');
    expect(match, second.out).not.toBeNull();
    const [, eventId, key] = match!;
    expect(key).toBe(`ses#${eventId}`);
    const row = await run('inbox', 'get', 'ses', eventId!);
    expect(row.code).toBe(0);
    expect(JSON.parse(row.out)).toMatchObject({
      pk: key,
      events: [{ recipient: 'second@example.com', kind: 'hard_bounce' }],
    });

    const listed = await run('inbox', 'list', '--limit', '2');
    expect(listed.code).toBe(0);
    const lines = listed.out.split('\n').map((l) => JSON.parse(l));
    expect(lines.map((l) => l.events[0].recipient)).toEqual(['second@example.com', 'first@example.com']);
    expect(lines[0]).toMatchObject({ key, events: [{ eventId, kind: 'hard_bounce' }] });
    expect(lines[0].receivedAt).toMatch(/^\d{4}-\d\d-\d\dT/);
    const onlySendgrid = (await run('inbox', 'list', '--provider', 'sendgrid', '--json')).out
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(onlySendgrid.every((l) => l.key.startsWith('sendgrid#'))).toBe(true);
    expect(typeof onlySendgrid[0].receivedAt).toBe('number');
    expect((await run('inbox', 'list', '--since', new Date(Date.now() + 3_600_000).toISOString())).out).toBe('');
    // The unsubscribe endpoint stores rows too: its name is a provider here.
    expect(await run('inbox', 'list', '--provider', 'unsubscribe')).toMatchObject({ code: 0, err: '' });

    const json = JSON.parse((await send(['ses', 'complaint', 'third@example.com', '--json'])).out);
    expect(json).toMatchObject({
      status: 200,
      response: { ok: true, admitted: 1 },
      events: [{ kind: 'complaint', inboxKey: expect.stringMatching(/^ses#/) }],
    });
  });

  it('send finds the stack through .data/local.json, whatever PORT says', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ratchet-send-state-'));
    dirs.push(dir);
    // The demo credentials the stack verifies against, and a state file naming it, as `npm start` writes.
    writeFileSync(join(dir, 'demo-credentials.json'), JSON.stringify(stack.demo), { mode: 0o600 });
    writeState(dir, stack.localState());
    expect(statSync(join(dir, 'local.json')).mode & 0o777).toBe(0o600);
    // A PORT exported for some other app in the same shell does not redirect it: local.json comes first.
    const result = await send(['postmark', 'bounce', 'via-state@example.com'], { RATCHET_DATA_DIR: dir, PORT: '1' });
    expect(result.code).toBe(0);
    expect(result.out).toContain(`POST ${stack.url}/webhooks/postmark → 200`);
  });

  it.each(['abc', '70000'])(
    'send with PORT=%s and no local stack exits 2 naming PORT, and posts nothing',
    async (port) => {
      const dir = mkdtempSync(join(tmpdir(), 'ratchet-send-port-'));
      dirs.push(dir);
      const result = await send(['ses', 'bounce', 'port@example.com'], { RATCHET_DATA_DIR: dir, PORT: port });
      expect(result).toEqual({
        code: 2,
        out: '',
        err: `error: PORT must be a port number from 0 to 65535, got ${JSON.stringify(port)}`,
      });
      expect(await stack.record('port@example.com')).toBeUndefined();
    },
  );

  it('an unknown RATCHET_TARGET exits 2 naming the allowed values, before touching anything', async () => {
    for (const argv of [
      ['suppressions', 'get', 'a@example.com'],
      ['unsubscribe-link', 'a@example.com'],
      ['sync', 'status'],
    ]) {
      const result = await ratchet(stack.cliEnv({ RATCHET_TARGET: 'awss' }), ...argv);
      expect(result).toEqual({ code: 2, out: '', err: 'error: RATCHET_TARGET must be one of aws, local, got "awss"' });
    }
  });

  it('with no sync provider configured, sync status says sync is off and reconcile says so with exit 2', async () => {
    expect(await run('sync', 'status')).toEqual({ code: 0, out: SYNC_OFF, err: '' });
    expect(JSON.parse((await run('sync', 'status', '--json')).out)).toEqual({ sync: 'off', providers: {} });
    expect(await run('sync', 'reconcile')).toEqual({
      code: 2,
      out: '',
      err: `error: ${SYNC_OFF}: nothing to reconcile (or name one with --provider)`,
    });
  });

  it('an answer that ignored events says why (ignoredReasons)', async () => {
    const response = await stack.post('ses', stack.sign('ses', 'hard_bounce', 'not-an-email'));
    expect(response).toMatchObject({
      status: 200,
      body: { ignored: 1, ignoredReasons: { 'recipient is not an email address': 1 } },
    });
  });
});
