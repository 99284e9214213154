/**
 * The console's guards over real HTTP against a real local stack: no session → 401, a foreign Host →
 * 403, a POST without the CSRF token → 403 (and nothing written), the token exchanged for an HttpOnly
 * SameSite=Strict cookie, a strict CSP on every answer, and 127.0.0.1 only.
 */
import { spawn } from 'node:child_process';
import { request as httpRequest } from 'node:http';
import { resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Context } from '../../lib/cli/context.js';
import { type RunningConsole, startConsole } from '../../lib/console/server.js';
import { ratchet, startTestStack, type TestStack } from './harness.js';

const quiet = { out: () => undefined, err: () => undefined, progressTty: false };

/** A raw request, so the Host header is ours to set (fetch forbids it). */
function send(
  port: number,
  options: { path: string; method?: string; host?: string; cookie?: string; body?: string },
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path: options.path,
        method: options.method ?? 'GET',
        headers: {
          Host: options.host ?? `127.0.0.1:${port}`,
          ...(options.cookie ? { Cookie: options.cookie } : {}),
          ...(options.body !== undefined ? { 'Content-Type': 'application/x-www-form-urlencoded' } : {}),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

describe('console guards', () => {
  let stack: TestStack;
  let consoleServer: RunningConsole;
  let cookie: string;

  beforeAll(async () => {
    stack = await startTestStack();
    const ctx = new Context(stack.cliEnv(), quiet);
    consoleServer = await startConsole({ ctx, actor: 'guard-tester', now: Date.now });
    const login = await send(consoleServer.port, {
      path: new URL(consoleServer.url).pathname + new URL(consoleServer.url).search,
    });
    expect(login.status).toBe(303);
    cookie = String(login.headers['set-cookie']).split(';')[0]!;
    await ratchet(stack.cliEnv({ USER: 'seed' }), 'suppressions', 'add', 'guarded@example.com', '--reason', 'seed');
  }, 90_000);

  afterAll(async () => {
    await consoleServer?.close();
    await stack?.stop();
  });

  it('listens on 127.0.0.1 only, with the token in the printed URL', () => {
    expect(consoleServer.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{43}$/);
  });

  it('exchanges the token for an HttpOnly, SameSite=Strict cookie and drops it from the URL', async () => {
    const token = new URL(consoleServer.url).searchParams.get('token')!;
    const login = await send(consoleServer.port, { path: `/lists?status=active&token=${token}` });
    expect(login.status).toBe(303);
    expect(login.headers.location).toBe('/lists?status=active');
    const set = String(login.headers['set-cookie']);
    expect(set).toMatch(/HttpOnly/);
    expect(set).toMatch(/SameSite=Strict/);
    expect(set).not.toContain(token);
    const sneaky = await send(consoleServer.port, { path: `//evil.example/x?token=${token}` });
    // Parsed as protocol-relative: only its path is kept, so the redirect stays on this origin.
    expect(sneaky.headers.location).toBe('/x');
  });

  it('answers 401 without the session, and with a wrong token', async () => {
    for (const path of ['/address', '/lists', '/health', '/console.css', '/lists.csv', '/nowhere']) {
      expect((await send(consoleServer.port, { path })).status, path).toBe(401);
    }
    expect((await send(consoleServer.port, { path: '/?token=guessed' })).status).toBe(401);
    expect((await send(consoleServer.port, { path: '/address', cookie: 'ratchet_console=guessed' })).status).toBe(401);
  });

  it('answers 403 to a foreign Host, even with the session (DNS rebinding)', async () => {
    for (const host of [
      'evil.example:80',
      `evil.example:${consoleServer.port}`,
      '127.0.0.1',
      `localhost:${consoleServer.port + 1}`,
    ]) {
      expect((await send(consoleServer.port, { path: '/address', host, cookie })).status, host).toBe(403);
    }
    expect(
      (await send(consoleServer.port, { path: '/address', host: `localhost:${consoleServer.port}`, cookie })).status,
    ).toBe(200);
  });

  it('answers 403 to a POST without the CSRF token, or with a wrong one, and writes nothing', async () => {
    const form = 'action=reactivate&email=guarded%40example.com&reason=no+csrf';
    expect(
      (await send(consoleServer.port, { path: '/address/action', method: 'POST', cookie, body: form })).status,
    ).toBe(403);
    expect(
      (await send(consoleServer.port, { path: '/address/action', method: 'POST', cookie, body: `${form}&csrf=wrong` }))
        .status,
    ).toBe(403);
    expect((await stack.record('guarded@example.com'))?.status).toBe('suppressed');
  });

  it('sends a strict CSP and no outside asset on every page', async () => {
    for (const path of ['/address?email=guarded@example.com', '/lists', '/health']) {
      const page = await send(consoleServer.port, { path, cookie });
      expect(page.status, path).toBe(200);
      expect(page.headers['content-security-policy']).toContain("default-src 'none'");
      expect(page.headers['content-security-policy']).not.toMatch(/script-src|unsafe/);
      expect(page.body).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    }
  });

  it('health names the command that redrives each queue and lists the doctor checks', async () => {
    const health = await send(consoleServer.port, { path: '/health', cookie });
    expect(health.status).toBe(200);
    for (const text of [
      'npx ratchet dlq redrive',
      'npx ratchet ses redrive',
      'npx ratchet sync retry',
      'npx ratchet doctor',
    ])
      expect(health.body).toContain(text);
    expect(health.body).toMatch(/<th scope="row">tables<\/th><td>ratchet-inbox and ratchet-suppressions answer/);
    expect(health.body).toMatch(/<th scope="row">dead-letter queue<\/th><td>0<\/td><td>0<\/td>/);
  });

  it('health shows a sync queue URL that is no queue URL as unhealthy, worded as the CLI words it, and still answers', async () => {
    const bad = new Context(stack.cliEnv({ SYNC_QUEUE_URL: 'ratchet-sync' }), quiet);
    const other = await startConsole({ ctx: bad, actor: 'guard-tester', now: Date.now });
    try {
      const url = new URL(other.url);
      const login = await send(other.port, { path: url.pathname + url.search });
      const session = String(login.headers['set-cookie']).split(';')[0]!;
      const health = await send(other.port, { path: '/health', cookie: session });
      expect(health.status).toBe(200);
      const problem =
        'SYNC_QUEUE_URL must be an SQS queue URL: http(s)://host/account/queue-name, got &quot;ratchet-sync&quot;';
      // The queue's row says why, and is never probed; doctor's check fails; the sync section says the same.
      expect(health.body).toContain(`<th scope="row">sync queue</th><td colspan="2" class="problem">${problem}</td>`);
      expect(health.body).toMatch(
        new RegExp(
          `<span class="badge suppressed">fail</span></td><th scope="row">sync settings</th><td>${literal(problem)}</td>`,
        ),
      );
      expect(health.body).toMatch(
        new RegExp(`<h2 id="h-sync-per-provider">Sync per provider</h2><p class="problem">${literal(problem)}</p>`),
      );
      // The rest of the page still shows.
      expect(health.body).toMatch(/<th scope="row">dead-letter queue<\/th><td>0<\/td><td>0<\/td>/);
    } finally {
      await other.close();
    }
  }, 60_000);

  it('answers 400 to bad input: a malformed address, an unknown filter value, a forged cursor', async () => {
    expect((await send(consoleServer.port, { path: '/address?email=not-an-address', cookie })).status).toBe(400);
    expect((await send(consoleServer.port, { path: '/lists?status=gone', cookie })).status).toBe(400);
    expect((await send(consoleServer.port, { path: '/lists?cursor=e30', cookie })).status).toBe(400);
  });

  it('`npx ratchet console` prints the target and the URL, serves it, and exits 0 on SIGINT; a bad --port is exit 2', async () => {
    const bin = resolve(import.meta.dirname, '..', '..', 'bin', 'ratchet.ts');
    const child = spawn(process.execPath, ['--import', 'tsx', bin, 'console'], {
      env: { ...process.env, ...stack.cliEnv() },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
    });
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    for (let i = 0; i < 300 && !/open: /.test(out); i++) await new Promise((r) => setTimeout(r, 100));
    expect(out).toMatch(/^console for DYNAMODB_ENDPOINT http:\/\/127\.0\.0\.1:\d+\n/);
    const url = /open: (http:\/\/127\.0\.0\.1:(\d+)\/\?token=\S+)/.exec(out)!;
    const login = await send(Number(url[2]), { path: url[1]!.slice(url[1]!.indexOf('/', 7)) });
    expect(login.status).toBe(303);
    child.kill('SIGINT');
    expect(await exited).toBe(0);
    const taken = await ratchet(stack.cliEnv(), 'console', '--port', String(consoleServer.port));
    expect(taken).toMatchObject({
      code: 1,
      err: `error: console: cannot listen on 127.0.0.1:${consoleServer.port} (EADDRINUSE): choose another --port`,
    });
    const bad = await ratchet(stack.cliEnv(), 'console', '--port', '70000');
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/must be a port from 0 to 65535/);
  }, 60_000);
});

function literal(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
