/**
 * An error page that quotes the request path (a wrong API URL answered by a web server's default
 * 404, "Cannot GET /v3/asm/suppressions/global/alice%40example.com", for SendGrid's lookup, which
 * accepts no 404) carries the address percent-encoded, as the adapters put it in the path or query. The error text is logged when the change is
 * dead-lettered, so that form must be redacted like a plain address.
 */
import { describe, expect, it } from 'vitest';
import { ProviderHttp, scrub } from '../../../../lambdas/adapters/sync/http.js';
import { SyncRefusedError } from '../../../../lambdas/core/sync/target.js';

describe('scrub: a percent-encoded address', () => {
  it('is redacted like a plain one', () => {
    const out = scrub('Cannot GET /v3/asm/suppressions/global/alice%40example.com', []);
    expect(out).not.toContain('alice');
    expect(out).toContain('example.com');
    expect(scrub('bob%2Btag%40example.org and carol%40x.org', [])).not.toMatch(/bob|carol/);
  });

  it('the refusal of a wrong URL quotes no address', async () => {
    const http = new ProviderHttp(
      { provider: 'sendgrid', headers: { authorization: 'Bearer SG.key' }, secrets: ['SG.key'] },
      {
        fetch: async (url) =>
          new Response(`<pre>Cannot GET ${new URL(url).pathname}</pre>`, {
            status: 404,
            headers: { 'content-type': 'text/html' },
          }),
      },
    );
    const error = await http
      .send({
        method: 'GET',
        url: `https://api.example.test/v3/asm/suppressions/global/${encodeURIComponent('alice+x@example.com')}`,
        label: 'GET /v3/asm/suppressions/global/{email}',
      })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as Error).message).toContain('HTTP 404');
    expect((error as Error).message).not.toContain('alice');
  });

  it('an address that a long text page puts across the length bound is still redacted', async () => {
    // 194 characters, a space, then the address: a cut at 200 before redacting would leave "alice@".
    const page = `${'x'.repeat(194)} alice@example.com was not found`;
    const http = new ProviderHttp(
      { provider: 'sendgrid', headers: {}, secrets: [] },
      { fetch: async () => new Response(page, { status: 404, headers: { 'content-type': 'text/plain' } }) },
    );
    const error = await http
      .send({ method: 'GET', url: 'https://api.example.test/x', label: 'GET /x' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SyncRefusedError);
    expect((error as Error).message).not.toContain('alice');
  });
});
