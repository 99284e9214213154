/**
 * Each adapter's lookup (`held`) against its provider's fake: undefined before the push, the same
 * outcome `apply` answers after it (and after a removal, for the removal), reads only (no call that
 * changes anything), and the port's errors for a 429, a 5xx and a wrong key, as a push has them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MailgunSyncTarget } from '../../../../lambdas/adapters/sync/mailgun.js';
import { PostmarkSyncTarget } from '../../../../lambdas/adapters/sync/postmark.js';
import { ResendSyncTarget } from '../../../../lambdas/adapters/sync/resend.js';
import { SendGridSyncTarget } from '../../../../lambdas/adapters/sync/sendgrid.js';
import { SesSyncTarget } from '../../../../lambdas/adapters/sync/ses.js';
import {
  type SyncOperation,
  SyncRateLimitedError,
  SyncRefusedError,
  type SyncTarget,
  SyncTransientError,
} from '../../../../lambdas/core/sync/target.js';
import type { LoopbackFake } from '../../../fakes/providers/loopback.js';
import { startMailgunFake } from '../../../fakes/providers/mailgun.js';
import { startPostmarkFake } from '../../../fakes/providers/postmark.js';
import { startResendFake } from '../../../fakes/providers/resend.js';
import { startSendGridFake } from '../../../fakes/providers/sendgrid.js';
import { startSesFake } from '../../../fakes/providers/ses.js';
import { rejection } from './support.js';

const NOW = 1_800_000_000_000;
const http = { now: () => NOW, timeoutMs: 2000 };
const EMAIL = 'held@example.com';

interface Case {
  fake: LoopbackFake;
  target: SyncTarget;
  /** The same target with a key the provider refuses. */
  wrongKey: SyncTarget;
}

const cases: Record<string, () => Promise<Case>> = {
  ses: async () => {
    const fake = await startSesFake();
    const make = (accessKeyId: string) =>
      new SesSyncTarget(
        { region: fake.region, endpoint: fake.url, credentials: { ...fake.credentials, accessKeyId } },
        http,
      );
    return { fake, target: make(fake.credentials.accessKeyId), wrongKey: make('AKIDWRONG') };
  },
  sendgrid: async () => {
    const fake = await startSendGridFake();
    const make = (apiKey: string) => new SendGridSyncTarget({ apiKey, apiUrl: fake.url }, http);
    return { fake, target: make(fake.apiKey), wrongKey: make('SG.wrong') };
  },
  postmark: async () => {
    const fake = await startPostmarkFake({ streams: ['outbound', 'transactional', 'broadcast'] });
    const make = (serverToken: string) =>
      new PostmarkSyncTarget(
        { serverToken, apiUrl: fake.url, streams: ['outbound', 'transactional'], topicStreams: ['broadcast'] },
        http,
      );
    return { fake, target: make(fake.serverToken), wrongKey: make('wrong') };
  },
  mailgun: async () => {
    const fake = await startMailgunFake({ domains: ['mg.example.com', 'mg2.example.com'] });
    const make = (apiKey: string) => new MailgunSyncTarget({ apiKey, apiUrl: fake.url, domains: fake.domains }, http);
    return { fake, target: make(fake.apiKey), wrongKey: make('key-wrong') };
  },
  resend: async () => {
    const fake = await startResendFake();
    const make = (apiKey: string) => new ResendSyncTarget({ apiKey, apiUrl: fake.url }, http);
    return { fake, target: make(fake.apiKey), wrongKey: make('re_wrong') };
  },
};

let open: LoopbackFake | undefined;
afterEach(async () => {
  await open?.close();
  open = undefined;
});

const writes = (fake: LoopbackFake) => fake.calls.filter((c) => c.method !== 'GET' && !c.path.endsWith('/dump'));

describe.each(Object.keys(cases))('%s: the lookup before a second push', (name) => {
  it('a suppression: absent before the push, the push’s own outcome after it; a removal likewise; reads only', async () => {
    const { fake, target } = await cases[name]!();
    open = fake;
    for (const reason of ['complaint', 'unsubscribe'] as const) {
      const suppress: SyncOperation = { op: 'suppress', email: `${reason}-${EMAIL}`, reason };
      expect(await target.held!(suppress)).toBeUndefined();
      const outcome = await target.apply(suppress);
      fake.clearCalls();
      expect(await target.held!(suppress)).toEqual(outcome);
      expect(writes(fake)).toEqual([]);
      expect(fake.calls.length).toBeGreaterThan(0);
      const unsuppress: SyncOperation = { op: 'unsuppress', email: suppress.email, lists: outcome.lists };
      expect(await target.held!(unsuppress)).toBeUndefined();
      const removed = await target.apply(unsuppress);
      expect(await target.held!(unsuppress)).toEqual(removed);
    }
  });

  it('a 429 on the lookup is a wait, a 5xx transient, a wrong key a refusal: as for a push', async () => {
    const { fake, target, wrongKey } = await cases[name]!();
    open = fake;
    const op: SyncOperation = { op: 'suppress', email: EMAIL, reason: 'hard_bounce' };
    fake.rateLimit(1, { 'retry-after': '3' });
    const limited = await rejection(target.held!(op));
    expect(limited).toBeInstanceOf(SyncRateLimitedError);
    expect((limited as SyncRateLimitedError).retryAtMs).toBe(NOW + 3000);
    fake.script({ status: 503, body: { message: 'down' } });
    expect(await rejection(target.held!(op))).toBeInstanceOf(SyncTransientError);
    expect(await rejection(wrongKey.held!(op))).toBeInstanceOf(SyncRefusedError);
  });
});

describe('scopes', () => {
  it('SendGrid: a group opt-out is held once the address is in that group, an opt-in once it is out', async () => {
    const { fake, target } = await cases.sendgrid!();
    open = fake;
    const add: SyncOperation = { op: 'suppressScope', email: EMAIL, scope: 'sendgrid:group:7' };
    const remove: SyncOperation = { op: 'unsuppressScope', email: EMAIL, scope: 'sendgrid:group:7' };
    expect(await target.held!(add)).toBeUndefined();
    expect(await target.held!(remove)).toEqual({ lists: ['group:7'] });
    const pushed = await target.apply(add);
    expect(await target.held!(add)).toEqual(pushed);
    expect(await target.held!({ ...add, scope: 'sendgrid:group:8' })).toBeUndefined();
    expect(await target.held!(remove)).toBeUndefined();
    expect(await target.held!({ op: 'unsuppress', email: EMAIL, lists: ['group:7'] })).toBeUndefined();
  });

  it('Postmark: a stream opt-out is held once the address is in that stream; a global one only when in every stream', async () => {
    const { fake, target } = await cases.postmark!();
    open = fake;
    const pm = fake as Awaited<ReturnType<typeof startPostmarkFake>>;
    const add: SyncOperation = { op: 'suppressScope', email: EMAIL, scope: 'postmark:stream:broadcast' };
    expect(await target.held!(add)).toBeUndefined();
    pm.seed('broadcast', EMAIL, 'ManualSuppression');
    expect(await target.held!(add)).toEqual({ lists: ['stream:broadcast'] });
    pm.seed('outbound', EMAIL, 'HardBounce');
    expect(await target.held!({ op: 'suppress', email: EMAIL, reason: 'complaint' })).toBeUndefined();
  });

  it('Mailgun: an unsubscribe from one tag only is not the all-mail unsubscribe Ratchet pushes', async () => {
    const { fake, target } = await cases.mailgun!();
    open = fake;
    const mg = fake as Awaited<ReturnType<typeof startMailgunFake>>;
    for (const domain of mg.domains)
      mg.seed(domain, 'unsubscribes', { address: EMAIL, createdAt: NOW, tags: ['news'] });
    const op: SyncOperation = { op: 'suppress', email: EMAIL, reason: 'unsubscribe' };
    expect(await target.held!(op)).toBeUndefined();
    await target.apply(op);
    expect(await target.held!(op)).toEqual({ lists: mg.domains.map((d) => `unsubscribes@${d}`) });
  });

  it('SES: a BOUNCE entry does not hold a complaint (the push moves it to COMPLAINT)', async () => {
    const { fake, target } = await cases.ses!();
    open = fake;
    (fake as Awaited<ReturnType<typeof startSesFake>>).seed(EMAIL, 'BOUNCE');
    expect(await target.held!({ op: 'suppress', email: EMAIL, reason: 'complaint' })).toBeUndefined();
    expect(await target.held!({ op: 'suppress', email: EMAIL, reason: 'hard_bounce' })).toEqual({
      lists: ['account'],
      providerReason: 'BOUNCE',
    });
  });
});
