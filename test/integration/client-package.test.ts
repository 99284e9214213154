/**
 * What a sending application does: `npm pack` this project (which builds dist/client on `prepare`),
 * install the tarball into a temporary project, `import ... from '@ratchet-email/ratchet/client'` through the
 * package's `exports`, and ask the emulator. Installing is done the way npm lays a package out
 * (the tarball's `package/` becomes node_modules/@ratchet-email/ratchet), offline, with @aws-sdk/client-dynamodb
 * linked from this checkout: the client's only dependency.
 */
import { execFile, execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { BatchWriteCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { NormalizedEvent } from '../../lambdas/core/event.js';
import { applyEvent, type SuppressionRecord } from '../../lambdas/core/suppression/index.js';
import { startTestStack, type TestStack } from './harness.js';

const ROOT = resolve(import.meta.dirname, '../..');
const T = Date.parse('2026-03-01T00:00:00Z');

function event(email: string, kind: NormalizedEvent['kind'], topic?: string): NormalizedEvent {
  return {
    provider: 'generic',
    eventId: `${kind}-${email}-${topic ?? ''}`,
    recipient: email,
    kind,
    occurredAt: T,
    detail: {},
    raw: '',
    ...(topic ? { topic } : {}),
  };
}

/** Address i of the batch: every 7th globally unsubscribed, every 11th out of the newsletter, every 13th complained. */
function batchRecord(i: number): SuppressionRecord | undefined {
  const email = `user${i}@example.com`;
  let record: SuppressionRecord | undefined;
  if (i % 7 === 0) record = applyEvent(record, event(email, 'unsubscribe')).record;
  if (i % 11 === 0) record = applyEvent(record, event(email, 'unsubscribe', 'newsletter')).record;
  if (i % 13 === 0) record = applyEvent(record, event(email, 'complaint')).record;
  return record;
}

describe('@ratchet-email/ratchet/client as an installed package', () => {
  let stack: TestStack;
  let app: string;

  beforeAll(async () => {
    stack = await startTestStack();
    const records = [
      applyEvent(undefined, event('topic@example.com', 'unsubscribe', 'newsletter')).record,
      applyEvent(undefined, event('unsub@example.com', 'unsubscribe')).record,
      ...Array.from({ length: 1000 }, (_, i) => batchRecord(i)).filter((r): r is SuppressionRecord => r !== undefined),
    ];
    for (let i = 0; i < records.length; i += 25) {
      const items = records
        .slice(i, i + 25)
        .map((Item) => ({ PutRequest: { Item: { ...Item, version: 1, updatedAt: T } } }));
      await stack.clients.doc.send(new BatchWriteCommand({ RequestItems: { [stack.config.suppressionTable]: items } }));
    }

    app = mkdtempSync(join(tmpdir(), 'ratchet-app-'));
    const [packed] = JSON.parse(
      execFileSync('npm', ['pack', '--json', '--pack-destination', app], {
        cwd: ROOT,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    ) as Array<{ filename: string; files: Array<{ path: string }> }>;
    expect(packed!.files.map((f) => f.path)).toEqual(
      expect.arrayContaining(['dist/client/index.js', 'dist/client/types/client/index.d.ts', 'package.json']),
    );
    mkdirSync(join(app, 'node_modules', '@aws-sdk'), { recursive: true });
    mkdirSync(join(app, 'node_modules', '@ratchet-email'), { recursive: true });
    execFileSync('tar', ['-xzf', join(app, packed!.filename), '-C', join(app, 'node_modules')]);
    renameSync(join(app, 'node_modules', 'package'), join(app, 'node_modules', '@ratchet-email', 'ratchet'));
    symlinkSync(
      realpathSync(join(ROOT, 'node_modules', '@aws-sdk', 'client-dynamodb')),
      join(app, 'node_modules', '@aws-sdk', 'client-dynamodb'),
    );
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'sender', private: true, type: 'module' }));
  }, 240_000);
  afterAll(async () => {
    await stack?.stop();
    if (app) rmSync(app, { recursive: true, force: true });
  });

  /**
   * Runs `code` as an ES module inside the temporary project; it prints one JSON value. Asynchronous
   * on purpose: the emulator runs in this process, so a synchronous child would wait on it forever.
   */
  async function runInApp(code: string): Promise<unknown> {
    writeFileSync(join(app, 'check.mjs'), code);
    const { stdout: out } = await promisify(execFile)(process.execPath, ['check.mjs'], {
      cwd: app,
      encoding: 'utf8',
      env: {
        PATH: process.env.PATH,
        SUPPRESSION_TABLE: stack.config.suppressionTable,
        DYNAMODB_ENDPOINT: stack.config.dynamoEndpoint,
        AWS_REGION: 'us-east-1',
      },
    });
    return JSON.parse(out);
  }

  it('ships only the built client, not the sources', () => {
    expect(existsSync(join(app, 'node_modules', '@ratchet-email', 'ratchet', 'lambdas'))).toBe(false);
    expect(existsSync(join(app, 'node_modules', '@ratchet-email', 'ratchet', 'dist', 'client', 'index.js'))).toBe(true);
  });

  it('answers a topic opt-out and a transactional mail after an unsubscribe (configured from the environment)', async () => {
    const answers = (await runInApp(`
      import { isSuppressed, getRecord } from '@ratchet-email/ratchet/client';
      const out = {
        topicNewsletter: await isSuppressed('Topic@Example.com', { topic: 'newsletter' }),
        topicOther: await isSuppressed('topic@example.com', { topic: 'offers' }),
        topicNoCategory: await isSuppressed('topic@example.com'),
        unsubNoCategory: await isSuppressed('unsub@example.com'),
        unsubTransactional: await isSuppressed('unsub@example.com', { transactional: true }),
        unsubNewsletter: await isSuppressed('unsub@example.com', { topic: 'newsletter' }),
        unknown: await isSuppressed('nobody@example.com', { transactional: true }),
        record: await getRecord('topic@example.com'),
      };
      console.log(JSON.stringify(out));
    `)) as Record<string, unknown>;
    expect(answers).toMatchObject({
      topicNewsletter: true,
      topicOther: false,
      topicNoCategory: false,
      unsubNoCategory: true,
      unsubTransactional: false,
      unsubNewsletter: true,
      unknown: false,
      record: {
        email: 'topic@example.com',
        status: 'active',
        transactionalStatus: 'active',
        topics: { newsletter: { status: 'unsubscribed' } },
      },
    });
  });

  it('filters a batch of 1,000 addresses (plus duplicates and invalid ones) exactly', async () => {
    const emails = Array.from({ length: 1000 }, (_, i) =>
      i % 2 === 0 ? `USER${i}@example.com ` : `user${i}@example.com`,
    );
    const result = (await runInApp(`
      import { filterSendable } from '@ratchet-email/ratchet/client';
      const emails = ${JSON.stringify([...emails, 'user1@example.com', 'not an address'])};
      console.log(JSON.stringify({
        newsletter: await filterSendable(emails, { topic: 'newsletter' }),
        transactional: await filterSendable(emails, { transactional: true }),
      }));
    `)) as Record<string, { sendable: string[]; suppressed: Array<{ email: string; reason: string }> }>;
    const expectNewsletter = (i: number) =>
      i % 13 === 0 ? 'complaint' : i % 7 === 0 ? 'unsubscribe' : i % 11 === 0 ? 'topic_unsubscribed' : undefined;
    const expectTransactional = (i: number) => (i % 13 === 0 ? 'complaint' : undefined);
    for (const [name, rule] of [
      ['newsletter', expectNewsletter],
      ['transactional', expectTransactional],
    ] as const) {
      const got = result[name]!;
      const wantSuppressed = Array.from({ length: 1000 }, (_, i) => i).filter((i) => rule(i) !== undefined);
      expect(got.suppressed).toEqual([
        ...wantSuppressed.map((i) => ({ email: `user${i}@example.com`, reason: rule(i) })),
        { email: 'not an address', reason: 'invalid_address' },
      ]);
      expect(got.sendable).toEqual(
        Array.from({ length: 1000 }, (_, i) => i)
          .filter((i) => rule(i) === undefined)
          .map((i) => `user${i}@example.com`),
      );
    }
  });

  it('is typed: a TypeScript sender type-checks against the shipped declarations', () => {
    writeFileSync(
      join(app, 'send.ts'),
      `import { filterSendable, isSuppressed, type FilterResult } from '@ratchet-email/ratchet/client';
       const r: FilterResult = await filterSendable(['a@example.com'], { topic: 'newsletter' });
       const b: boolean = await isSuppressed('a@example.com', { transactional: true });
       // @ts-expect-error: the question has no such option
       await isSuppressed('a@example.com', { category: 'x' });
       export { r, b };`,
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          target: 'ES2022',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
        },
        files: ['send.ts'],
      }),
    );
    execFileSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], {
      cwd: app,
      encoding: 'utf8',
    });
  });
});
