/**
 * No API key, and no full address, appears in anything a sync failure can put in a log: every failure
 * path of every adapter (wrong key, 400, 404 on a scope, 429, 5xx, closed port, timeout), checked on the
 * error's message, stack and own properties, and on anything written to the console meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createSyncTargets } from '../../../../lambdas/adapters/sync/index.js';
import type { SyncOperation, SyncTarget } from '../../../../lambdas/core/sync/target.js';
import { type ProviderFakes, startProviderFakes } from '../../../fakes/providers/index.js';
import { everythingIn, rejection } from './support.js';

const ADDRESS = 'very.private.person@example.com';
let fakes: ProviderFakes;
beforeAll(async () => {
  fakes = await startProviderFakes();
});
afterAll(() => fakes.close());

const WRONG = {
  sendgrid: 'SG.WRONG-sendgrid-key',
  postmark: 'WRONG-postmark-token',
  mailgun: 'WRONG-mailgun-key',
  resend: 're_WRONG_resend_key',
};

function targets(keys: {
  sendgrid: string;
  postmark: string;
  mailgun: string;
  resend: string;
  sesKeyId: string;
  sesSecret: string;
}): SyncTarget[] {
  return createSyncTargets(
    {
      ses: {
        region: fakes.ses.region,
        endpoint: fakes.ses.url,
        credentials: { accessKeyId: keys.sesKeyId, secretAccessKey: keys.sesSecret },
      },
      sendgrid: { apiKey: keys.sendgrid, apiUrl: fakes.sendgrid.url },
      postmark: { serverToken: keys.postmark, apiUrl: fakes.postmark.url, streams: ['outbound'] },
      mailgun: { apiKey: keys.mailgun, apiUrl: fakes.mailgun.url, domains: ['mg.example.com'] },
      resend: { apiKey: keys.resend, apiUrl: fakes.resend.url },
    },
    { timeoutMs: 2000 },
  );
}

/** The keys the fakes accept: none may appear in an error, an outcome or a log line. */
function fakeKeys() {
  return {
    sendgrid: fakes.sendgrid.apiKey,
    postmark: fakes.postmark.serverToken,
    mailgun: fakes.mailgun.apiKey,
    resend: fakes.resend.apiKey,
    sesKeyId: fakes.ses.credentials.accessKeyId,
    sesSecret: fakes.ses.credentials.secretAccessKey,
  };
}

describe('sync errors never carry a key or an address', () => {
  it('on every failure path of every provider', async () => {
    const right = fakeKeys();
    const secrets = [
      ...Object.values(right),
      ...Object.values(WRONG),
      'AKIDWRONGSES',
      'wrong-ses-secret',
      Buffer.from(`api:${right.mailgun}`).toString('base64'),
      Buffer.from(`api:${WRONG.mailgun}`).toString('base64'),
    ];
    const console_ = [
      vi.spyOn(console, 'log'),
      vi.spyOn(console, 'warn'),
      vi.spyOn(console, 'error'),
      vi.spyOn(console, 'info'),
      vi.spyOn(console, 'debug'),
    ];
    const errors: Error[] = [];
    const suppress: SyncOperation = { op: 'suppress', email: ADDRESS, reason: 'complaint' };
    const remove: SyncOperation = {
      op: 'unsuppress',
      email: ADDRESS,
      lists: ['account', 'global_unsubscribes', 'stream:outbound', 'complaints@mg.example.com', 'suppressions'],
    };

    for (const target of targets({ ...WRONG, sesKeyId: 'AKIDWRONGSES', sesSecret: 'wrong-ses-secret' })) {
      errors.push(
        await rejection(target.apply(suppress)),
        await rejection(target.apply(remove)),
        await rejection(target.list(() => undefined)),
      );
    }
    const good = targets(right);
    // An address the provider refuses: a 4xx error, or (Postmark) a `refused` row in the outcome.
    const outcomes: string[] = [];
    for (const target of good) {
      await target.apply({ op: 'suppress', email: `bad ${ADDRESS}`, reason: 'complaint' }).then(
        (outcome) => outcomes.push(JSON.stringify(outcome)),
        (error: Error) => errors.push(error),
      );
    }
    expect(errors.length + outcomes.length).toBe(5 * 3 + 5);
    for (const fake of [fakes.ses, fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend]) {
      fake.rateLimit(1, { 'retry-after': '1' });
      fake.script({
        status: 503,
        body: {
          message: `down for ${ADDRESS}`,
          Message: `down for ${ADDRESS}`,
          errors: [{ field: null, message: `down for ${ADDRESS}` }],
        },
      });
    }
    for (const target of good)
      errors.push(await rejection(target.apply(suppress)), await rejection(target.apply(suppress)));
    await Promise.all(
      [fakes.ses, fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend].map((f) => f.down(300, 'refused')),
    );
    for (const target of good) errors.push(await rejection(target.apply(remove)));
    await new Promise((r) => setTimeout(r, 400));

    const real = errors.filter((e): e is Error => e instanceof Error);
    expect(real).toHaveLength(errors.length);
    expect(outcomes.join()).toContain('refused');
    const logged = console_.flatMap((spy) => spy.mock.calls.map((args) => args.map(String).join(' ')));
    for (const spy of console_) spy.mockRestore();
    const everything = [...real.map(everythingIn), ...outcomes, ...logged].join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain(ADDRESS);
    expect(everything).toContain('v***@example.com'); // the providers' own texts were kept, redacted
  });

  it('on every failure path of a batched push (applyMany)', async () => {
    const keys = fakeKeys();
    const secrets = [
      ...Object.values(keys),
      ...Object.values(WRONG),
      Buffer.from(`api:${keys.mailgun}`).toString('base64'),
    ];
    const batch: SyncOperation[] = [
      { op: 'suppress', email: ADDRESS, reason: 'complaint' },
      { op: 'suppress', email: `other.${ADDRESS}`, reason: 'complaint' },
    ];
    const withBad: SyncOperation[] = [...batch, { op: 'suppress', email: `bad ${ADDRESS}`, reason: 'complaint' }];
    const batching = (all: SyncTarget[]) => all.filter((t) => t.applyMany !== undefined);
    const errors: Error[] = [];
    const outcomes: string[] = [];
    for (const target of batching(targets({ ...WRONG, sesKeyId: 'AKIDX', sesSecret: 'x' })))
      errors.push(await rejection(target.applyMany!(batch)));
    const good = batching(targets(keys));
    expect(good.map((t) => t.provider)).toEqual(['sendgrid', 'postmark', 'mailgun', 'resend']);
    for (const target of good)
      await target.applyMany!(withBad).then(
        (answers) => outcomes.push(JSON.stringify(answers)),
        (error: Error) => errors.push(error),
      );
    for (const fake of [fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend]) {
      fake.rateLimit(1, { 'retry-after': '1' });
      fake.script({ status: 503, body: { message: `down for ${ADDRESS}`, Message: `down for ${ADDRESS}` } });
    }
    for (const target of good)
      errors.push(await rejection(target.applyMany!(batch)), await rejection(target.applyMany!(batch)));
    await Promise.all([fakes.sendgrid, fakes.postmark, fakes.mailgun, fakes.resend].map((f) => f.down(300, 'refused')));
    for (const target of good) errors.push(await rejection(target.applyMany!(batch)));
    await new Promise((r) => setTimeout(r, 400));

    expect(errors.length + outcomes.length).toBe(4 + 4 + 4 * 3);
    expect(outcomes.join()).toContain('refused');
    const everything = [...errors.map(everythingIn), ...outcomes].join('\n');
    for (const secret of secrets) expect(everything).not.toContain(secret);
    expect(everything).not.toContain(ADDRESS);
  });
});
