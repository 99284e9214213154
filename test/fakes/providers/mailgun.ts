/**
 * A fake of Mailgun's per-domain suppression lists: bounces, complaints, unsubscribes.
 *
 * Sources (https://documentation.mailgun.com/docs/mailgun/api-reference/...):
 * - .../api-overview: base URL https://api.mailgun.net (EU: https://api.eu.mailgun.net); HTTP Basic auth,
 *   user `api`, password the key (a wrong key: 401, body "Forbidden"); errors are JSON {message}; dates
 *   RFC 2822 strings.
 * - .../send/mailgun/bounces/post-v3--domainid--bounces: POST /v3/{domain}/bounces, either a JSON array of
 *   up to 1000 records {address, code, error, created_at} (Content-Type application/json) or one record
 *   as form data; .../get-v3--domainid--bounces: GET /v3/{domain}/bounces?limit= (default 100, max 1000)
 *   → {items, paging: {first, next, previous, last}} (absolute URLs; a page past the end is empty);
 *   .../get-v3--domainid--bounces--address-: GET /v3/{domain}/bounces/{address} → the record, 404 "Address not
 *   found in bounces table" when absent;
 *   .../delete-v3--domainid--bounces--address-: DELETE /v3/{domain}/bounces/{address}, 404 when absent.
 * - .../send/mailgun/complaints/...: the same shape, records {address, created_at}.
 * - .../send/mailgun/unsubscribe/post-v3--domainid--unsubscribes: records {address, tags, created_at} in JSON,
 *   {address, tag} as form data; tag `*` unsubscribes from all of the domain's mail.
 */
import {
  type FakeRequest,
  type FakeResponse,
  isEmail,
  type LoopbackFake,
  parseJson,
  pushLog,
  type RecordedPush,
  segment,
  startLoopback,
} from './loopback.js';

export const MAILGUN_LISTS = ['bounces', 'complaints', 'unsubscribes'] as const;
export type MailgunList = (typeof MAILGUN_LISTS)[number];
/** The most records one JSON POST takes (.../bounces/post-v3--domainid--bounces). */
export const MAILGUN_MAX_RECORDS = 1000;

export interface MailgunEntry {
  address: string;
  /** epoch ms */
  createdAt: number;
  code?: string;
  error?: string;
  tags?: string[];
}

export interface MailgunFake extends LoopbackFake {
  readonly apiKey: string;
  readonly domains: readonly string[];
  list(domain: string, name: MailgunList): MailgunEntry[];
  seed(domain: string, name: MailgunList, entry: MailgunEntry): void;
  /** Every add the fake took, in order: per domain and list, the addresses of the request. */
  pushes(): readonly RecordedPush[];
}

export interface MailgunFakeOptions {
  apiKey?: string;
  domains?: readonly string[];
  now?: () => number;
}

const message = (status: number, text: string): FakeResponse => ({ status, body: { message: text } });

function record(raw: unknown): Record<string, unknown> | undefined {
  return raw && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : undefined;
}

/** The records of a POST: a JSON array, or one record as form fields. */
function records(request: FakeRequest): Record<string, unknown>[] | FakeResponse {
  const type = request.headers['content-type'] ?? '';
  if (type.startsWith('application/json')) {
    const parsed = parseJson(request.body);
    if (!Array.isArray(parsed)) return message(400, 'Request body must be a JSON array');
    // .../bounces/post-v3--domainid--bounces: "up to 1000 bounce records" (and the complaints and unsubscribes twins).
    if (parsed.length === 0 || parsed.length > MAILGUN_MAX_RECORDS)
      return message(400, 'Between 1 and 1000 records are allowed');
    const out = parsed.map(record);
    return out.every((r) => r !== undefined)
      ? (out as Record<string, unknown>[])
      : message(400, 'Each record must be an object');
  }
  if (type.startsWith('application/x-www-form-urlencoded')) {
    const form = new URLSearchParams(request.body);
    const one: Record<string, unknown> = {};
    for (const [k, v] of form) one[k] = v;
    return [one];
  }
  return message(400, 'Unsupported Content-Type: send application/json or form data');
}

export async function startMailgunFake(options: MailgunFakeOptions = {}): Promise<MailgunFake> {
  const apiKey = options.apiKey ?? 'key-sync-fake';
  const now = options.now ?? Date.now;
  const domainIds = options.domains ?? ['mg.example.com', 'mg2.example.com'];
  const tables = new Map<string, Map<MailgunList, Map<string, MailgunEntry>>>(
    domainIds.map((d) => [d, new Map(MAILGUN_LISTS.map((l) => [l, new Map()]))]),
  );
  const expectedAuth = `Basic ${Buffer.from(`api:${apiKey}`).toString('base64')}`;
  const pushed = pushLog(now);

  function add(
    path: string,
    table: Map<string, MailgunEntry>,
    name: MailgunList,
    rows: Record<string, unknown>[],
  ): FakeResponse {
    for (const row of rows) {
      if (!isEmail(row.address)) return message(400, `'address' parameter is not a valid email address`);
    }
    for (const row of rows) {
      const address = row.address as string;
      const createdAt =
        typeof row.created_at === 'string' && !Number.isNaN(Date.parse(row.created_at))
          ? Date.parse(row.created_at)
          : now();
      const entry: MailgunEntry = { address, createdAt };
      if (name === 'bounces') {
        entry.code = row.code === undefined ? '550' : String(row.code);
        entry.error = typeof row.error === 'string' ? row.error : '';
      }
      if (name === 'unsubscribes') {
        const tags = Array.isArray(row.tags) ? row.tags.map(String) : typeof row.tag === 'string' ? [row.tag] : ['*'];
        const previous = table.get(address.toLowerCase())?.tags ?? [];
        entry.tags = [...new Set([...previous, ...tags])];
      }
      table.set(address.toLowerCase(), entry);
    }
    pushed.record(
      path,
      rows.map((row) => row.address as string),
    );
    const text =
      rows.length === 1
        ? `Address has been added to the ${name} table`
        : `${rows.length} addresses have been added to the ${name} table`;
    return { status: 200, body: { message: text, ...(rows.length === 1 ? { address: rows[0]!.address } : {}) } };
  }

  function page(
    domain: string,
    name: MailgunList,
    table: Map<string, MailgunEntry>,
    request: FakeRequest,
  ): FakeResponse {
    const limit = request.query.has('limit') ? Number(request.query.get('limit')) : 100;
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
      return message(400, 'Invalid limit: must be between 1 and 1000');
    // Sorted by the comparison the pivot is filtered with (code units): with localeCompare, `x190@` sorts
    // before `x19@` while `>` puts it after, so a page ending at `x19@` skipped it.
    const byAddress = (e: MailgunEntry) => e.address.toLowerCase();
    const sorted = [...table.values()].sort((a, b) =>
      byAddress(a) < byAddress(b) ? -1 : byAddress(a) > byAddress(b) ? 1 : 0,
    );
    const pivot = request.query.get('address');
    const direction = request.query.get('page');
    let items = sorted;
    if (direction === 'next' && pivot) items = sorted.filter((e) => e.address.toLowerCase() > pivot.toLowerCase());
    else if (direction !== null && direction !== 'first' && direction !== 'next')
      return message(400, 'Unsupported page direction');
    items = items.slice(0, limit);
    const base = `${request.baseUrl}/v3/${encodeURIComponent(domain)}/${name}`;
    const last = items.at(-1)?.address ?? pivot ?? '';
    return {
      status: 200,
      body: {
        items: items.map((e) => ({
          address: e.address,
          created_at: new Date(e.createdAt).toUTCString(),
          ...(e.code !== undefined ? { code: e.code, error: e.error } : {}),
          ...(e.tags ? { tags: e.tags } : {}),
        })),
        paging: {
          first: `${base}?page=first&limit=${limit}`,
          last: `${base}?page=last&limit=${limit}`,
          next: `${base}?page=next&address=${encodeURIComponent(last)}&limit=${limit}`,
          previous: `${base}?page=previous&address=${encodeURIComponent(items[0]?.address ?? '')}&limit=${limit}`,
        },
      },
    };
  }

  function route(request: FakeRequest): FakeResponse {
    if (request.headers.authorization !== expectedAuth) return { status: 401, body: 'Forbidden' };
    const match = /^\/v3\/([^/]+)\/(bounces|complaints|unsubscribes)(?:\/([^/]+))?$/.exec(request.path);
    if (!match) return message(404, 'Not Found');
    const domain = segment(match[1]);
    const name = match[2] as MailgunList;
    const lists = tables.get(domain);
    if (!lists) return message(404, `Domain not found: ${domain}`);
    const table = lists.get(name)!;
    const address = match[3] === undefined ? undefined : segment(match[3]);
    if (address === undefined && request.method === 'POST') {
      const rows = records(request);
      return Array.isArray(rows) ? add(request.path, table, name, rows) : rows;
    }
    if (address === undefined && request.method === 'GET') return page(domain, name, table, request);
    if (address !== undefined && (request.method === 'GET' || request.method === 'DELETE')) {
      const entry = table.get(address.toLowerCase());
      if (!entry) return message(404, `Address not found in ${name} table`);
      if (request.method === 'GET')
        return {
          status: 200,
          body: {
            address: entry.address,
            created_at: new Date(entry.createdAt).toUTCString(),
            ...(entry.code !== undefined ? { code: entry.code, error: entry.error } : {}),
            ...(entry.tags ? { tags: entry.tags } : {}),
          },
        };
      table.delete(address.toLowerCase());
      return { status: 200, body: { message: `${name} address has been removed`, address: entry.address } };
    }
    return message(405, 'Method Not Allowed');
  }

  const fake = await startLoopback(route, {
    now,
    faultBody: (status) => ({ message: status === 429 ? 'Too many requests' : 'Service Unavailable' }),
  });

  const clearCalls = fake.clearCalls;
  return Object.assign(fake, {
    apiKey,
    clearCalls: () => {
      clearCalls();
      pushed.clear();
    },
    pushes: pushed.pushes,
    domains: domainIds,
    list: (domain: string, name: MailgunList) =>
      [...(tables.get(domain)?.get(name)?.values() ?? [])].map((e) => ({ ...e })),
    seed: (domain: string, name: MailgunList, entry: MailgunEntry) =>
      void tables
        .get(domain)
        ?.get(name)
        ?.set(entry.address.toLowerCase(), { ...entry }),
  });
}
