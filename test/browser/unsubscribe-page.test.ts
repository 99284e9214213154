/**
 * The unsubscribe page in a real browser: Debian's Chromium driven by playwright-core (pinned), with
 * JavaScript off, against the real local stack. Screenshots of each page go to test/artifacts/
 * (git-ignored). Skipped, saying why, only when no Chromium can be found.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unsubscribeUrl } from '../../lambdas/client/unsubscribe.js';
import { startTestStack, type TestStack } from '../integration/harness.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p) => p && existsSync(p),
);
if (!CHROMIUM)
  console.warn(
    'browser tests skipped: no Chromium at $CHROMIUM_PATH, /usr/bin/chromium or /usr/bin/chromium-browser (apt-get install -y chromium)',
  );

const ARTIFACTS = resolve(import.meta.dirname, '..', 'artifacts');
const SECRET = 'browser-test-unsubscribe-secret-0123456789';
const EMAIL = 'jane.reader@example.com';

describe.skipIf(!CHROMIUM)('the unsubscribe page in Chromium', () => {
  let stack: TestStack;
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const foreignRequests: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    stack = await startTestStack({
      env: {
        UNSUBSCRIBE_SECRETS: SECRET,
        TOPIC_LABELS: 'newsletter=Weekly newsletter',
        UNSUBSCRIBE_BRAND: 'Acme Mail',
      },
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--no-sandbox',
        '--headless',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--no-first-run',
        '--disable-sync',
      ],
    });
    // JavaScript off: the page must work without it.
    const context = await browser.newContext({
      javaScriptEnabled: false,
      viewport: { width: 390, height: 700 },
      locale: 'en-US',
    });
    page = await context.newPage();
    page.on('console', (m) => problems.push(`${m.type()}: ${m.text()}`));
    page.on('request', (r) => {
      if (!r.url().startsWith(stack.url)) foreignRequests.push(r.url());
    });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const rowsFor = async () => (await stack.inboxRows()).filter((r) => r.event.recipient === EMAIL);

  it('shows the masked address and the label, changes nothing on GET, then unsubscribes and resubscribes', async () => {
    const url = unsubscribeUrl({ email: EMAIL, topic: 'newsletter', secrets: SECRET, baseUrl: stack.url, env: {} });

    const first = await page.goto(url);
    expect(first!.status()).toBe(200);
    expect(first!.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(await page.title()).toBe('Unsubscribe j•••@example.com from Weekly newsletter? · Acme Mail');
    expect(await page.locator('h1').innerText()).toBe('Unsubscribe j•••@example.com from Weekly newsletter?');
    expect(await page.content()).not.toContain('jane.reader');
    await page.reload();
    await page.screenshot({ path: join(ARTIFACTS, 'unsubscribe-confirm.png'), fullPage: true });
    expect(await rowsFor()).toEqual([]);
    expect(await stack.queueDepth()).toMatchObject({ visible: 0, inFlight: 0 });

    // Keyboard users reach the button and see where focus is.
    await page.keyboard.press('Tab');
    // Playwright evaluates in its own isolated world, which works with the page's scripts off.
    const focus = await page.evaluate(
      '(() => { const e = document.activeElement; const s = getComputedStyle(e); return [e.textContent, s.outlineStyle, s.outlineWidth]; })()',
    );
    expect(focus).toEqual(['Unsubscribe', 'solid', '3px']);

    const [unsubscribed] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Unsubscribe' }).click(),
    ]);
    expect(unsubscribed.status()).toBe(200);
    expect(unsubscribed.headers().location).toBeUndefined();
    await expect.poll(() => page.locator('h1').innerText()).toBe('You are unsubscribed');
    expect(await page.locator('main').innerText()).toContain(
      'j•••@example.com will no longer receive Weekly newsletter.',
    );
    await page.screenshot({ path: join(ARTIFACTS, 'unsubscribe-done.png'), fullPage: true });

    const afterUnsubscribe = await rowsFor();
    expect(afterUnsubscribe).toHaveLength(1);
    expect(afterUnsubscribe[0]).toMatchObject({
      event: { kind: 'unsubscribe', topic: 'newsletter', provider: 'unsubscribe' },
    });
    // Queued for the consumer like any webhook event, then applied: that topic only, never the address.
    expect((await stack.queueDepth()).visible).toBe(1);
    await stack.drain();
    expect(await stack.record(EMAIL)).toMatchObject({
      status: 'active',
      topics: { newsletter: { status: 'unsubscribed' } },
    });

    const [resubscribed] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.getByRole('button', { name: 'Resubscribe' }).click(),
    ]);
    expect(resubscribed.status()).toBe(200);
    await expect.poll(() => page.locator('h1').innerText()).toBe('You are subscribed again');
    await page.screenshot({ path: join(ARTIFACTS, 'unsubscribe-resubscribed.png'), fullPage: true });
    const rows = await rowsFor();
    expect(rows).toHaveLength(2);
    const optIn = rows.find((r) => r.event.kind === 'subscribe');
    expect(optIn).toMatchObject({ event: { topic: 'newsletter' } });
    expect(optIn!.event.occurredAt).toBeGreaterThan(afterUnsubscribe[0]!.event.occurredAt);
    await stack.drain();
    expect(await stack.record(EMAIL)).toMatchObject({
      status: 'active',
      topics: { newsletter: { status: 'subscribed' } },
    });

    expect(foreignRequests).toEqual([]);
    expect(problems.filter((p) => /Content Security Policy|Refused/i.test(p))).toEqual([]);
  }, 60_000);

  it('shows a friendly error page for a tampered link, and the page reads well on a wide screen', async () => {
    await page.setViewportSize({ width: 900, height: 560 });
    const url = unsubscribeUrl({ email: EMAIL, topic: 'newsletter', secrets: SECRET, baseUrl: stack.url, env: {} });
    await page.goto(url);
    await page.screenshot({ path: join(ARTIFACTS, 'unsubscribe-confirm-wide.png') });
    const broken = await page.goto(url.slice(0, -4));
    expect(broken!.status()).toBe(400);
    expect(await page.locator('h1').innerText()).toBe('This unsubscribe link does not work');
    await page.screenshot({ path: join(ARTIFACTS, 'unsubscribe-invalid.png') });
  }, 30_000);
});
