/** Where the CLIs go: send's stack URL (.data/local.json, else PORT), RATCHET_TARGET, queue names with SQS_ENDPOINT, the sync queue, and the actor fallback. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyEvent, suppressManually } from '../../../lambdas/core/suppression/index.js';
import { hasTopic } from '../../../lib/cli/commands/transfer.js';
import { Context } from '../../../lib/cli/context.js';
import { cliSyncFastPath, cliSyncProviders } from '../../../lib/cli/sync-fast-path.js';
import { localStackUrl, resolveTarget, SettingError, TargetError, targetSetting } from '../../../lib/cli/target.js';
import { QUEUE } from '../../../lib/definitions.js';
import { SYNC_QUEUE, syncResourceNames } from '../../../lib/sync-definitions.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
function dataDir(state?: Record<string, unknown>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ratchet-target-'));
  dirs.push(dir);
  if (state) writeFileSync(join(dir, 'local.json'), JSON.stringify(state));
  return dir;
}
const io = { out: () => undefined, err: () => undefined, progressTty: false };

describe("send's stack", () => {
  it('.data/local.json first: a PORT exported for another app does not redirect the demo', () => {
    const dir = dataDir({ pid: process.pid, url: 'http://127.0.0.1:4567' });
    expect(localStackUrl({ PORT: '3311', RATCHET_DATA_DIR: dir })).toEqual({
      url: 'http://127.0.0.1:4567',
      source: join(dir, 'local.json'),
    });
    // Not even a PORT that does not parse: it is not used.
    expect(localStackUrl({ PORT: 'abc', RATCHET_DATA_DIR: dir }).url).toBe('http://127.0.0.1:4567');
  });

  it('PORT only without local.json; 0 names no port, so the default port', () => {
    const empty = dataDir();
    expect(localStackUrl({ PORT: '3311', RATCHET_DATA_DIR: empty })).toEqual({
      url: 'http://localhost:3311',
      source: 'PORT',
    });
    expect(localStackUrl({ PORT: '0', RATCHET_DATA_DIR: empty }).url).toBe('http://localhost:3000');
    expect(localStackUrl({ RATCHET_DATA_DIR: empty }).url).toBe('http://localhost:3000');
  });

  it.each(['abc', '-1', '3.5', '65536', '80x'])('PORT=%s is a SettingError (exit 2), naming PORT', (port) => {
    expect(() => localStackUrl({ PORT: port, RATCHET_DATA_DIR: dataDir() })).toThrow(
      new SettingError(`PORT must be a port number from 0 to 65535, got ${JSON.stringify(port)}`),
    );
  });

  it('a local.json whose pid has exited says the stack is not running', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(() => localStackUrl({ RATCHET_DATA_DIR: dataDir({ pid: dead, url: 'http://127.0.0.1:1' }) })).toThrow(
      TargetError,
    );
  });
});

describe('RATCHET_TARGET', () => {
  it('aws skips the local stack; local requires it; unset tries it', () => {
    const dir = dataDir({ pid: process.pid, url: 'http://127.0.0.1:4567', inboxTable: 'i', suppressionTable: 's' });
    expect(resolveTarget({ RATCHET_DATA_DIR: dir }).kind).toBe('local');
    expect(resolveTarget({ RATCHET_DATA_DIR: dir, RATCHET_TARGET: 'local' }).kind).toBe('local');
    expect(resolveTarget({ RATCHET_DATA_DIR: dir, RATCHET_TARGET: 'aws' }).kind).toBe('aws');
    expect(() => resolveTarget({ RATCHET_DATA_DIR: dataDir(), RATCHET_TARGET: 'local' })).toThrow(
      /RATCHET_TARGET=local, but the local stack is not running/,
    );
  });

  it.each(['awss', 'AWS', 'remote'])('%s is a SettingError naming the allowed values', (value) => {
    expect(() => targetSetting({ RATCHET_TARGET: value })).toThrow(
      new SettingError(`RATCHET_TARGET must be one of aws, local, got ${JSON.stringify(value)}`),
    );
    expect(() => resolveTarget({ RATCHET_TARGET: value, RATCHET_DATA_DIR: dataDir() })).toThrow(SettingError);
  });
});

describe('the sync queue, found as the events queue is', () => {
  const local = {
    pid: process.pid,
    url: 'http://127.0.0.1:4567',
    inboxTable: 'i',
    suppressionTable: 's',
    syncQueueUrl: 'http://sqs/local-sync',
    syncDeadLetterUrl: 'http://sqs/local-sync-dead-letters',
    syncProviders: ['ses', 'resend'],
  };

  it('SYNC_QUEUE_URL and SYNC_DEAD_LETTER_QUEUE_URL first, everywhere', () => {
    const urls = { SYNC_QUEUE_URL: 'http://q/sync', SYNC_DEAD_LETTER_QUEUE_URL: 'http://q/sync-dl' };
    for (const env of [
      { ...urls, RATCHET_DATA_DIR: dataDir(local) },
      { ...urls, RATCHET_TARGET: 'aws' },
      { ...urls, DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', SQS_ENDPOINT: 'http://127.0.0.1:2' },
    ]) {
      expect(resolveTarget(env)).toMatchObject({
        syncQueueUrl: 'http://q/sync',
        syncDeadLetterUrl: 'http://q/sync-dl',
      });
      expect(resolveTarget(env)).not.toHaveProperty('syncQueueName');
    }
  });

  it("the running npm start's queues and providers, from local.json", () => {
    const target = resolveTarget({ RATCHET_DATA_DIR: dataDir(local) });
    expect(target).toMatchObject({
      syncQueueUrl: local.syncQueueUrl,
      syncDeadLetterUrl: local.syncDeadLetterUrl,
      syncProviders: ['ses', 'resend'],
    });
    expect(cliSyncProviders({}, target)).toEqual(['ses', 'resend']);
    expect(cliSyncProviders({ SYNC_PROVIDERS: 'sendgrid' }, target)).toEqual(['sendgrid']);
  });

  it('by name on SQS_ENDPOINT and on AWS: SYNC_QUEUE_NAME, else the default (the stack names it <prefix>-sync)', () => {
    const endpoint = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', SQS_ENDPOINT: 'http://127.0.0.1:2' };
    expect(resolveTarget(endpoint)).toMatchObject({ syncQueueName: SYNC_QUEUE.defaultName });
    expect(resolveTarget({ ...endpoint, SYNC_QUEUE_NAME: 'staging-sync' })).toMatchObject({
      syncQueueName: 'staging-sync',
    });
    expect(resolveTarget({ RATCHET_TARGET: 'aws' })).toMatchObject({
      syncQueueName: syncResourceNames('ratchet').queue,
    });
    // A DynamoDB endpoint alone has no SQS to look a name up on.
    expect(resolveTarget({ DYNAMODB_ENDPOINT: 'http://127.0.0.1:1' })).not.toHaveProperty('syncQueueName');
  });

  it("on AWS, another stack's tables mean that stack's sync queue, never the default stack's", () => {
    // Two stacks in one account: operating `ratchet-staging` must not send to, count or redrive `ratchet-sync`.
    const staging = { RATCHET_TARGET: 'aws', SUPPRESSION_TABLE: 'ratchet-staging-suppressions' };
    expect(resolveTarget(staging)).toMatchObject({ syncQueueName: syncResourceNames('ratchet-staging').queue });
    expect(resolveTarget({ ...staging, SYNC_QUEUE_NAME: 'other-sync' })).toMatchObject({ syncQueueName: 'other-sync' });
    // A table name the stack would not give: no name to guess, the operator is told to set SYNC_QUEUE_URL.
    expect(resolveTarget({ RATCHET_TARGET: 'aws', SUPPRESSION_TABLE: 'my-table' })).not.toHaveProperty('syncQueueName');
    expect(resolveTarget({ RATCHET_TARGET: 'aws' })).toMatchObject({ syncQueueName: 'ratchet-sync' });
  });

  it('no providers configured: sync is off, and the CLI sends no fast path', () => {
    const target = resolveTarget({ RATCHET_TARGET: 'aws' });
    expect(cliSyncProviders({}, target)).toEqual([]);
    expect(cliSyncFastPath({}, target, () => undefined as never)).toBeUndefined();
  });
});

describe('queues as npm start names them', () => {
  it('with SQS_ENDPOINT and no QUEUE_URL, QUEUE_NAME (or the default) is the name to look up', () => {
    const base = { DYNAMODB_ENDPOINT: 'http://127.0.0.1:1', SQS_ENDPOINT: 'http://127.0.0.1:2' };
    expect(resolveTarget({ ...base, QUEUE_NAME: 'mine' })).toMatchObject({ queueName: 'mine', queueUrl: undefined });
    expect(resolveTarget(base)).toMatchObject({ queueName: QUEUE.defaultName });
    expect(resolveTarget({ ...base, QUEUE_URL: 'http://q' })).toMatchObject({ queueUrl: 'http://q' });
    expect(resolveTarget({ ...base, QUEUE_URL: 'http://q' })).not.toHaveProperty('queueName');
    expect(resolveTarget({ ...base, SES_DEAD_LETTER_QUEUE: 'ses-dlq' }).sesDeadLetterQueue).toBe('ses-dlq');
  });
});

describe('the actor of a manual action', () => {
  it('--actor, else $USER, else the OS account', () => {
    const ctx = new Context({}, io);
    expect(ctx.actor('ops')).toBe('ops');
    expect(new Context({ USER: 'alice' }, io).actor()).toBe('alice');
    expect(ctx.actor()).toBe(userInfo().username);
  });
});

describe('export --topic', () => {
  it('matches a topic entry or a manual change of that topic, not a substring of another field', () => {
    const topical = applyEvent(undefined, {
      provider: 'sendgrid',
      eventId: 'e',
      recipient: 'a@example.com',
      kind: 'unsubscribe',
      occurredAt: 1,
      detail: {},
      raw: '',
      topic: 'news',
    }).record;
    expect(hasTopic(topical, 'news')).toBe(true);
    expect(hasTopic(topical, 'new')).toBe(false);
    const manual = suppressManually(undefined, 'b@example.com', {
      actor: 'ops',
      reason: '"topic":"news"',
      at: 2,
    }).record;
    expect(hasTopic(manual, 'news')).toBe(false);
  });
});
