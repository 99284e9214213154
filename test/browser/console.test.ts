/**
 * The operator console in a real browser: Debian's Chromium driven by playwright-core, JavaScript off
 * (the console has none), against the real local stack. Each page is screenshotted at desktop and phone
 * widths into docs/console/ (embedded in docs/console.md); axe-core checks every page; every body the
 * console sends is searched for the seeded secrets. Skipped, saying why, only when no Chromium exists.
 */

import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AxeBuilder } from '@axe-core/playwright';
import { type Browser, type BrowserContext, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '../../lib/cli/context.js';
import { EXPORT_CSV_COLUMNS } from '../../lib/cli/export-format.js';
import { operatorAccount } from '../../lib/console/command.js';
import { type RunningConsole, startConsole } from '../../lib/console/server.js';
import { createTables, ratchet, startTestStack, type TestStack } from '../integration/harness.js';
import { REPUTATION, seedReputation } from './console-seed.js';

const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (p) => p && existsSync(p),
);
if (!CHROMIUM)
  console.warn(
    'browser tests skipped: no Chromium at $CHROMIUM_PATH, /usr/bin/chromium or /usr/bin/chromium-browser (apt-get install -y chromium)',
  );

// docs/console/ holds the screenshots docs/console.md embeds; a test run writes beside the other
// artifacts unless asked to refresh the docs (RATCHET_UPDATE_SCREENSHOTS=1), so tests never dirty the tree.
const SHOTS =
  process.env.RATCHET_UPDATE_SCREENSHOTS === '1'
    ? resolve(import.meta.dirname, '..', '..', 'docs', 'console')
    : resolve(import.meta.dirname, '..', 'artifacts', 'console');
const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };
/** Secrets the console can reach (its environment): none may appear in any page. */
const SECRET_ENV = {
  UNSUBSCRIBE_SECRETS: 'console-test-unsubscribe-secret-0123456789',
  SENDGRID_API_KEY: 'SG.console-test-sendgrid-key-abcdefghijklmnop',
  POSTMARK_SERVER_TOKEN: 'console-test-postmark-token-0123456789',
};
const quiet = { out: () => undefined, err: () => undefined, progressTty: false };

describe.skipIf(!CHROMIUM)('the operator console in Chromium', () => {
  let stack: TestStack;
  let server: RunningConsole;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const bodies: Array<{ url: string; body: string }> = [];
  const foreign: string[] = [];
  let secrets: string[] = [];
  const run = (...argv: string[]) => ratchet(stack.cliEnv({ USER: 'seed' }), ...argv);

  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    stack = await startTestStack({ env: { ...SECRET_ENV } });
    // Evidence from webhooks (raw events in the inbox), a reactivation (discounted evidence), a topic opt-out.
    for (const [provider, kind, email] of [
      ['ses', 'complaint', 'jane@example.com'],
      ['mailgun', 'hard_bounce', 'jane@example.com'],
      ['mailgun', 'hard_bounce', 'bulk1@example.com'],
      ['mailgun', 'hard_bounce', 'bulk2@example.com'],
      ['mailgun', 'hard_bounce', 'bulk3@example.com'],
      ['sendgrid', 'hard_bounce', 'other@example.com'],
      ['postmark', 'complaint', 'keys@example.com'],
    ] as const) {
      expect((await stack.post(provider, stack.sign(provider, kind, email))).status).toBeLessThan(300);
    }
    await stack.drain();
    await run('suppressions', 'reactivate', 'other@example.com', '--reason', 'mailbox fixed');
    await run('suppressions', 'add', 'manual@example.com', '--reason', 'asked by legal');
    await run('suppressions', 'add', 'jane@example.com', '--topic', 'newsletter', '--reason', 'asked on the phone');
    secrets = [
      ...Object.values(SECRET_ENV),
      ...Object.values(stack.demo).flatMap((d) => [d.credential, d.signingSecret]),
      // SES's "credential" is the topic ARN it accepts: public, and in every SNS envelope.
    ].filter((s) => s.length >= 12 && !s.startsWith('arn:'));
    await seedReputation(stack);
    const ctx = new Context(stack.cliEnv({ ...SECRET_ENV, REPUTATION_TABLE: REPUTATION }), quiet);
    await ctx.resolveQueues();
    server = await startConsole({ ctx, actor: operatorAccount(), now: Date.now });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--headless', '--disable-gpu', '--disable-background-networking', '--no-first-run'],
    });
    context = await browser.newContext({ javaScriptEnabled: false, viewport: DESKTOP, locale: 'en-US' });
    page = await context.newPage();
    page.on('request', (r) => {
      if (!r.url().startsWith(server.origin)) foreign.push(r.url());
    });
    page.on('response', async (r) => {
      const type = r.headers()['content-type'] ?? '';
      if (/text|csv/.test(type)) bodies.push({ url: r.url(), body: await r.text().catch(() => '') });
    });
    const login = await page.goto(server.url);
    expect(login!.status()).toBe(200);
    expect(new URL(page.url()).search).toBe('');
  }, 120_000);

  afterAll(async () => {
    // No page, CSV or error the console sent holds a secret's value.
    for (const { url, body } of bodies) for (const secret of secrets) expect(body, url).not.toContain(secret);
    expect(foreign).toEqual([]);
    await browser?.close();
    await server?.close();
    await stack?.stop();
  });

  async function shoot(name: string, url: string): Promise<void> {
    for (const [width, viewport] of [
      ['desktop', DESKTOP],
      ['phone', PHONE],
    ] as const) {
      await page.setViewportSize(viewport);
      const answer = await page.goto(`${server.origin}${url}`);
      expect(answer!.status(), url).toBeLessThan(400);
      await page.screenshot({ path: join(SHOTS, `${name}-${width}.png`), fullPage: true });
    }
    await page.setViewportSize(DESKTOP);
  }

  it('search → evidence → reactivate, audited with the OS user', async () => {
    await page.goto(`${server.origin}/address`);
    await page.getByLabel('Email address').fill('  Jane@Example.com ');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect.poll(() => page.locator('h2').first().innerText()).toBe('jane@example.com');
    const evidence = page.locator('table').first();
    expect(await evidence.innerText()).toMatch(/complaint\s+ses\s+counts/);
    expect(await evidence.innerText()).toMatch(/hard_bounce\s+mailgun\s+counts/);
    expect(await evidence.innerText()).toMatch(/topic newsletter/);
    // The raw events the inbox holds, signatures redacted.
    expect(await page.locator('details pre').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('details pre').allTextContents()).toEqual(
      expect.arrayContaining([expect.stringContaining('[redacted]')]),
    );
    await page
      .getByLabel(/Reason \(required/)
      .first()
      .fill('confirmed with the customer');
    await page.getByRole('button', { name: 'Reactivate…' }).click();
    expect(await page.locator('h1').innerText()).toBe('Confirm: reactivate');
    expect((await stack.record('jane@example.com'))?.status).toBe('suppressed');
    await page.getByRole('button', { name: 'Confirm: reactivate' }).click();
    expect(await page.locator('.notice').innerText()).toMatch(/^Reactivated/);
    expect(await page.locator('dl').first().innerText()).toMatch(/Status\s+active/);
    expect(await page.locator('table').first().innerText()).toMatch(/discounted/);
    const record = await stack.record('jane@example.com');
    expect(record?.status).toBe('active');
    expect(record?.audit.at(-1)).toMatchObject({
      action: 'reactivate',
      actor: operatorAccount(),
      reason: 'confirmed with the customer',
    });
  });

  it('keyboard only: search, then opt out of a topic through the confirmation', async () => {
    await page.goto(`${server.origin}/address`);
    const tabTo = async (selector: string) => {
      for (let i = 0; i < 60; i++) {
        if ((await page.locator(`${selector}:focus`).count()) === 1) return;
        await page.keyboard.press('Tab');
      }
      throw new Error(`Tab never reached ${selector}`);
    };
    await tabTo('#email');
    await page.keyboard.type('manual@example.com');
    await page.keyboard.press('Enter');
    await page.waitForURL(/email=manual%40example\.com/);
    await tabTo('#topic-out-topic');
    await page.keyboard.type('weekly');
    await page.keyboard.press('Tab');
    await page.keyboard.type('keyboard test');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/address\/confirm/);
    await tabTo('button[type=submit]');
    await page.keyboard.press('Enter');
    await page.waitForURL(/done=topic-out/);
    const record = await stack.record('manual@example.com');
    expect(record?.topics.weekly.status).toBe('unsubscribed');
    expect(record?.audit.at(-1)).toMatchObject({ topic: 'weekly', actor: operatorAccount(), reason: 'keyboard test' });
  });

  it('reactivates a filtered list in bulk, confirmed with the count', async () => {
    await page.goto(`${server.origin}/lists`);
    await page.getByLabel('Reason', { exact: true }).selectOption('hard_bounce');
    await page.getByLabel('Provider').selectOption('mailgun');
    await page.getByRole('button', { name: 'Filter' }).click();
    const listed = await page.locator('tbody tr').allInnerTexts();
    expect(listed.map((r) => r.split('\t')[0]).sort()).toEqual([
      'bulk1@example.com',
      'bulk2@example.com',
      'bulk3@example.com',
    ]);
    await page.getByRole('link', { name: /Reactivate the suppressed records/ }).click();
    expect(await page.locator('main p').first().innerText()).toMatch(/^3 suppressed records match/);
    await page.getByLabel(/Reason \(required/).fill('provider outage bounced them');
    await page.getByRole('button', { name: 'Confirm: reactivate 3 records' }).click();
    expect(await page.locator('.notice').innerText()).toMatch(/^Reactivated 3 of 3 records/);
    for (const email of ['bulk1@example.com', 'bulk2@example.com', 'bulk3@example.com']) {
      const record = await stack.record(email);
      expect(record?.status, email).toBe('active');
      expect(record?.audit.at(-1)).toMatchObject({ actor: operatorAccount(), reason: 'provider outage bounced them' });
    }
    expect((await stack.record('keys@example.com'))?.status).toBe('suppressed');
  });

  it('exports the filtered view as CSV that `ratchet suppressions import` reads back to the same records', async () => {
    const csv = await (await context.request.get(`${server.origin}/lists.csv?status=suppressed`)).text();
    bodies.push({ url: 'lists.csv', body: csv });
    const lines = csv.trim().split('\n');
    expect(lines[0]).toBe(EXPORT_CSV_COLUMNS.join(','));
    expect(lines.length).toBeGreaterThan(1);
    const file = join(tmpdir(), `console-export-${process.pid}.csv`);
    writeFileSync(file, csv);
    const table = `console-reimport-${process.pid}`;
    await createTables(stack.config.dynamoEndpoint!, { inbox: `${table}-inbox`, suppression: table });
    const env = stack.cliEnv({ SUPPRESSION_TABLE: table });
    expect((await ratchet(env, 'suppressions', 'import', file, '--format', 'csv')).code).toBe(0);
    const back = (await ratchet(env, 'suppressions', 'export', '--format', 'csv')).out.trim().split('\n');
    // Format 2 carries the whole record: every row comes back as it left, cell for cell.
    expect(back[0]).toBe(lines[0]);
    expect(back.slice(1).sort()).toEqual(lines.slice(1).sort());
  });

  it('shows every sender with its 24 h and 7 d rates, and its hourly rates as SVG with the warn and breach lines', async () => {
    await page.goto(`${server.origin}/reputation`);
    const rows = await page.locator('tbody tr').allInnerTexts();
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(
      /^news\.example\.com\s+ses\s+breach\s+5112\s+5\.63 %\s+0\.469 %\s+34056\s+1\.27 %\s+0\.0705 %$/,
    );
    expect(rows[1]).toMatch(/^receipts\.example\.com\s+sendgrid\s+ok\s/);
    await page.getByRole('link', { name: 'news.example.com' }).click();
    const charts = page.locator('svg[role=img]');
    expect(await charts.count()).toBe(2);
    expect(await charts.first().locator('line[stroke-dasharray]').count()).toBe(2);
    expect(await charts.first().locator('title').textContent()).toBe('Hourly hard-bounce rate of news.example.com');
    expect(await page.locator('svg text').allTextContents()).toEqual(
      expect.arrayContaining(['warn 2 %', 'breach 4 %']),
    );
  });

  it('screenshots every page at desktop and phone widths', async () => {
    await shoot('address', '/address?email=keys%40example.com');
    await shoot('address-confirm', '/address/confirm?action=reactivate&email=keys%40example.com&reason=checked');
    await shoot('lists', '/lists?status=suppressed');
    await shoot('health', '/health');
    await shoot('reputation', '/reputation');
    await shoot('reputation-sender', '/reputation?sender=news.example.com');
    for (const name of ['address', 'lists', 'health']) expect(existsSync(join(SHOTS, `${name}-phone.png`))).toBe(true);
  }, 60_000);

  it('has no serious or critical axe violation on any page', async () => {
    // axe runs as a script: its own context with JavaScript on (the pages have none of their own).
    const axeContext = await browser.newContext({ viewport: DESKTOP, bypassCSP: true });
    const axePage = await axeContext.newPage();
    await axePage.goto(server.url);
    for (const url of [
      '/address',
      '/address?email=jane%40example.com',
      '/address/confirm?action=reactivate&email=keys%40example.com&reason=checked',
      '/lists',
      '/lists/reactivate?provider=postmark',
      '/health',
      '/reputation',
      '/reputation?sender=news.example.com',
    ]) {
      await axePage.goto(`${server.origin}${url}`);
      const { violations, passes } = await new AxeBuilder({ page: axePage }).analyze();
      expect(passes.length, `axe ran on ${url}`).toBeGreaterThan(10);
      const bad = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(
        bad.map((v) => `${v.id}: ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`),
        url,
      ).toEqual([]);
    }
    await axeContext.close();
  }, 60_000);
});
