/**
 * One-click unsubscribe on the real local stack (dynalite + fauxqs, the real handlers): the RFC 8058
 * POST exactly as a mailbox provider sends it, GET is read-only, repeated POSTs leave one inbox row,
 * and the event reaches the suppression table through the same queue and consumer as a webhook.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeUrl } from '../../lambdas/client/unsubscribe.js';
import { unsubscribeLink } from '../../lib/cli/unsubscribe-link.js';
import { startLocalRuntime } from '../../lib/local/runtime.js';
import { captureLog, startTestStack, type TestStack } from './harness.js';

const SECRET = 'integration-unsubscribe-secret-0123456789';

describe('one-click unsubscribe on the local stack', () => {
  let stack: TestStack;
  const link = (email: string, topic: string) =>
    unsubscribeUrl({ email, topic, secrets: SECRET, baseUrl: stack.url, env: {} });

  beforeAll(async () => {
    stack = await startTestStack({
      env: { UNSUBSCRIBE_SECRETS: SECRET, TOPIC_LABELS: 'newsletter=Weekly newsletter' },
    });
  });
  afterAll(() => stack?.stop());

  it('GET shows the page and changes nothing: no inbox row, nothing queued', async () => {
    const url = link('reader@example.com', 'newsletter');
    for (let i = 0; i < 3; i++) {
      const response = await fetch(url, { headers: { accept: 'text/html' } });
      expect(response.status).toBe(200);
      expect(await response.text()).toContain('Unsubscribe r•••@example.com from <em>Weekly newsletter</em>?');
    }
    expect((await stack.inboxRows()).filter((r) => r.event.recipient === 'reader@example.com')).toEqual([]);
    expect(await stack.queueDepth()).toMatchObject({ visible: 0, inFlight: 0 });
  });

  it('the RFC 8058 POST as a mailbox provider sends it: no cookies, form body, 200 text, never a redirect', async () => {
    const email = 'mailbox-provider@example.com';
    const response = await fetch(link(email, '*'), {
      method: 'POST',
      redirect: 'manual',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        'user-agent': 'Mozilla/5.0 (compatible; Googlebot/2.1)',
      },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('location')).toBeNull();
    expect(response.headers.get('set-cookie')).toBeNull();
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe('You are unsubscribed.\n');
    await stack.drain();
    expect(await stack.record(email)).toMatchObject({ email, status: 'suppressed', reason: 'unsubscribe' });
  });

  it('accepts the multipart form of the same POST', async () => {
    const form = new FormData();
    form.set('List-Unsubscribe', 'One-Click');
    const response = await fetch(link('multipart@example.com', '*'), {
      method: 'POST',
      redirect: 'manual',
      body: form,
    });
    expect(response.status).toBe(200);
    const rows = (await stack.inboxRows()).filter((r) => r.event.recipient === 'multipart@example.com');
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ event: { kind: 'unsubscribe', provider: 'unsubscribe' } });
  });

  it('repeated POSTs of one link leave one inbox row and one effect', async () => {
    const email = 'repeat@example.com';
    const url = link(email, '*');
    for (let i = 0; i < 4; i++) {
      const response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: 'List-Unsubscribe=One-Click',
      });
      expect(response.status).toBe(200);
      if (i === 1) await stack.drain();
    }
    await stack.drain();
    const rows = (await stack.inboxRows()).filter((r) => r.event.recipient === email);
    expect(rows).toHaveLength(1);
    const record = await stack.record(email);
    expect(Object.keys(record!.evidence).filter((k) => k.startsWith('unsubscribe:unsubscribe#'))).toHaveLength(1);
  });

  it('a tampered token gets a 400 page (JSON when asked) and writes nothing', async () => {
    const url = link('tampered@example.com', '*');
    const token = url.split('/').pop()!;
    const bytes = Buffer.from(token, 'base64url');
    bytes[10]! ^= 0x20;
    const bad = `${stack.url}/unsubscribe/${bytes.toString('base64url')}`;
    const html = await fetch(bad, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'text/html' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(html.status).toBe(400);
    expect(await html.text()).toContain('This unsubscribe link does not work');
    const json = await fetch(bad, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(400);
    expect(await json.json()).toEqual({ error: 'invalid_token' });
    expect((await stack.inboxRows()).filter((r) => r.event.recipient === 'tampered@example.com')).toEqual([]);
  });
});

describe('npm start without UNSUBSCRIBE_SECRETS', () => {
  it('generates a demo key once under the data dir, records it in local.json, and the CLI link works', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-unsub-'));
    const start = () =>
      startLocalRuntime({
        env: { AWS_REGION: 'us-east-1' },
        port: 0,
        dataDir,
        persist: false,
        background: false,
        log: captureLog(),
      });
    try {
      let runtime = await start();
      expect(runtime.unsubscribe).toEqual({ baseUrl: `http://localhost:${runtime.port}`, usingDemoKey: true });
      const keyFile = join(dataDir, 'unsubscribe-demo-key');
      const key = readFileSync(keyFile, 'utf8').trim();
      expect(key.length).toBeGreaterThanOrEqual(32);
      expect(statSync(keyFile).mode & 0o077).toBe(0);
      const state = JSON.parse(readFileSync(join(dataDir, 'local.json'), 'utf8'));
      expect(state).toMatchObject({ unsubscribeBaseUrl: `http://localhost:${runtime.port}`, unsubscribeDemoKey: key });

      const lines: string[] = [];
      const url = await unsubscribeLink(
        'cli@example.com',
        { topic: 'newsletter' },
        { env: { RATCHET_DATA_DIR: dataDir }, out: (l) => lines.push(l) },
      );
      expect(lines).toEqual([url]);
      expect(url.startsWith(`http://localhost:${runtime.port}/unsubscribe/`)).toBe(true);
      const page = await fetch(url.replace('localhost', '127.0.0.1'));
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('c•••@example.com');
      await runtime.stop();
      expect(existsSync(join(dataDir, 'local.json'))).toBe(false);

      runtime = await start(); // the same key on the next start: links already sent keep working
      expect(readFileSync(keyFile, 'utf8').trim()).toBe(key);
      expect((await fetch(url.replace(/localhost:\d+/, `127.0.0.1:${runtime.port}`))).status).toBe(200);
      await runtime.stop();
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("the runtime's `edge` overrides reach the webhook edge only; `unsubscribe` reaches the endpoint", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'ratchet-unsub-'));
    const down = { send: async () => Promise.reject(new Error('queue down')) };
    const env = { AWS_REGION: 'us-east-1', UNSUBSCRIBE_SECRETS: SECRET };
    const post = (baseUrl: string, email: string) =>
      fetch(unsubscribeUrl({ email, topic: '*', secrets: SECRET, baseUrl, env: {} }), {
        method: 'POST',
        body: 'List-Unsubscribe=One-Click',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      });
    try {
      // A queue that is down, given to one of the two: only the endpoint that was given it answers 503.
      for (const [option, status] of [
        ['edge', 200],
        ['unsubscribe', 503],
      ] as const) {
        const runtime = await startLocalRuntime({
          env,
          port: 0,
          dataDir,
          persist: false,
          background: false,
          log: captureLog(),
          [option]: { queue: down },
        });
        try {
          expect((await post(`http://127.0.0.1:${runtime.port}`, `split-${status}@example.com`)).status).toBe(status);
        } finally {
          await runtime.stop();
        }
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
