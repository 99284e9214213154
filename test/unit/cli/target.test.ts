/** Where the CLIs go: send's stack URL (PORT, else .data/local.json), queue names with SQS_ENDPOINT, and the actor fallback. */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { applyEvent, suppressManually } from '../../../lambdas/core/suppression/index.js';
import { hasTopic } from '../../../lib/cli/commands/transfer.js';
import { Context } from '../../../lib/cli/context.js';
import { localStackUrl, resolveTarget, TargetError } from '../../../lib/cli/target.js';
import { QUEUE } from '../../../lib/definitions.js';

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
  it('PORT when set; 0 names no port, so local.json; else the default port', () => {
    const dir = dataDir({ pid: process.pid, url: 'http://127.0.0.1:4567' });
    expect(localStackUrl({ PORT: '3311', RATCHET_DATA_DIR: dir })).toEqual({
      url: 'http://localhost:3311',
      source: 'PORT',
    });
    expect(localStackUrl({ PORT: '0', RATCHET_DATA_DIR: dir })).toEqual({
      url: 'http://127.0.0.1:4567',
      source: join(dir, 'local.json'),
    });
    expect(localStackUrl({ RATCHET_DATA_DIR: dir }).url).toBe('http://127.0.0.1:4567');
    expect(localStackUrl({ RATCHET_DATA_DIR: dataDir() }).url).toBe('http://localhost:3000');
  });

  it('a local.json whose pid has exited says the stack is not running', () => {
    const dead = spawnSync(process.execPath, ['-e', '']).pid!;
    expect(() => localStackUrl({ RATCHET_DATA_DIR: dataDir({ pid: dead, url: 'http://127.0.0.1:1' }) })).toThrow(
      TargetError,
    );
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
