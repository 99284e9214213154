/**
 * docs/deploy.md and docs/cdk-construct.md against what synth makes. The default stack and each
 * documented variant (`sesFeed=https`, `front=function-url`, sync on) are synthesized, and the docs'
 * claims are read back from the template rather than from a list kept here: every function the
 * template has must be described by its role, every output named, every subscription as the doc says,
 * every context key in the table, the inbox TTL's minimum as the synth enforces it, and every file a
 * doc names must exist. A new function, output or key fails here until the doc says it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { App } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minimumInboxTtlDays } from '../../lambdas/core/inbox-retention.js';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { SYNC_PROVIDER_NAMES } from '../../lambdas/core/sync/target.js';
import { readConfig } from '../../lib/config.js';
import { pascal } from '../../lib/constructs/provider-secrets.js';
import { CONTEXT_KEYS, contextKeyRows } from '../../lib/context-keys.js';
import { ContextError } from '../../lib/context-values.js';
import { RatchetStack } from '../../lib/stack.js';
import { CONTEXT_MARKERS, DEPLOY_DOC, renderContextTable } from '../../tools/context-table.js';
import { NO_BUNDLING, resources, type Synthesized, synthesizeTemplate } from './helpers.js';

const ROOT = resolve(import.meta.dirname, '../..');
const CONSTRUCT_DOC = join(ROOT, 'docs', 'cdk-construct.md');
const deployDoc = () => readFileSync(DEPLOY_DOC, 'utf8');
const constructDoc = () => readFileSync(CONSTRUCT_DOC, 'utf8');

/** The text of one `## ` section (up to the next `## `). */
function section(doc: string, heading: string): string {
  const start = doc.indexOf(`\n## ${heading}\n`);
  expect(start, `section "${heading}"`).toBeGreaterThanOrEqual(0);
  const end = doc.indexOf('\n## ', start + 1);
  return doc.slice(start, end < 0 ? undefined : end);
}

const VARIANTS = {
  default: {},
  https: { sesFeed: 'https' },
  functionUrl: { front: 'function-url' },
  sync: { syncProviders: SYNC_PROVIDER_NAMES.join(','), mailgunDomains: 'mg.example.com', postmarkStreams: 'outbound' },
} as const;
type Variant = keyof typeof VARIANTS;

const synths = {} as Record<Variant, Synthesized>;
beforeAll(() => {
  for (const [name, context] of Object.entries(VARIANTS)) synths[name as Variant] = synthesizeTemplate(context);
}, 240_000);
afterAll(() => {
  for (const s of Object.values(synths)) s?.cleanup();
});

interface FunctionFacts {
  /** The role, from the function's description: `Ratchet edge: ...` -> `edge`. */
  role: string;
  variables: string[];
}

function functionsOf(s: Synthesized): FunctionFacts[] {
  return Object.values(resources(s))
    .filter((r) => r.Type === 'AWS::Lambda::Function')
    .map((r) => {
      const role = /^Ratchet ([^:]+):/.exec(r.Properties.Description ?? '')?.[1];
      expect(role, `a function without a "Ratchet <role>: ..." description: ${r.Properties.Description}`).toBeDefined();
      return { role: role!, variables: Object.keys(r.Properties.Environment?.Variables ?? {}) };
    });
}

/** "What each Lambda gets": paragraph per role, starting "The <role>". */
function lambdaParagraphs(): Map<string, string> {
  const text = section(deployDoc(), 'What each Lambda gets');
  const out = new Map<string, string>();
  for (const paragraph of text.split(/\n\s*\n/)) {
    const match = /^The ([A-Za-z ]+?)(?: \([^)]*\))?:/.exec(paragraph.trim());
    if (match) out.set(match[1]!.toLowerCase(), paragraph);
  }
  return out;
}

/** `SENDGRID_SECRET_ARN` is what the doc spells `<PROVIDER>_SECRET_ARN`, and the sync ones `SYNC_<PROVIDER>_SECRET_ARN`, `_RATE`, `_CONCURRENCY`. */
function documentedAs(variable: string): string {
  for (const suffix of ['SECRET_ARN', 'RATE', 'CONCURRENCY'])
    if (SYNC_PROVIDER_NAMES.some((p) => variable === `SYNC_${p.toUpperCase()}_${suffix}`))
      return `SYNC_<PROVIDER>_${suffix}`;
  const provider = PROVIDERS.find((p) => p.secretArnVariable === variable);
  return provider ? '<PROVIDER>_SECRET_ARN' : variable;
}

/** Output ids with one per provider collapsed: `WebhookUrlSendgrid` -> `WebhookUrl<Provider>`. */
function documentedOutput(id: string): string {
  for (const prefix of ['WebhookUrl', 'SecretArn']) {
    if (PROVIDERS.some((p) => id === `${prefix}${pascal(p.name)}`)) return `${prefix}<Provider>`;
  }
  return id;
}

/** Inline code spans, outside fenced blocks (whose ``` would pair with the wrong span). */
const backticked = (text: string): string[] =>
  [...text.replace(/^```[^\n]*\n[\s\S]*?^```/gm, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);

describe('docs/deploy.md: What the stack creates', () => {
  it('names every function the template has, in every variant, by its role', () => {
    const creates = section(deployDoc(), 'What the stack creates').toLowerCase();
    const roles = new Set(Object.values(synths).flatMap((s) => functionsOf(s).map((f) => f.role)));
    for (const role of roles)
      expect(creates, `"What the stack creates" names the ${role}`).toContain(role.toLowerCase());
  });

  it('says which subscription the SES topic has: SQS by default, HTTPS with sesFeed=https', () => {
    const creates = section(deployDoc(), 'What the stack creates').replace(/\s+/g, ' ');
    const protocols = (s: Synthesized) =>
      Object.values(resources(s))
        .filter((r) => r.Type === 'AWS::SNS::Subscription')
        .map((r) => String(r.Properties.Protocol).toUpperCase());
    const byDefault = protocols(synths.default);
    const withHttps = protocols(synths.https);
    expect(new Set(byDefault).size, 'one kind of SES subscription by default').toBe(1);
    expect(new Set(withHttps).size, 'one kind with sesFeed=https').toBe(1);
    expect(creates).toMatch(new RegExp(`by default it has an ${byDefault[0]} subscription`));
    expect(creates).toMatch(new RegExp(`with \`sesFeed=https\` an ${withHttps[0]} subscription`));
  });

  it('lists every output of every variant, and no output that none has', () => {
    const outputs = section(deployDoc(), 'What the stack creates');
    const paragraph = outputs.slice(outputs.indexOf('Outputs:'));
    const named = new Set(backticked(paragraph.slice(0, paragraph.indexOf('\n\n'))));
    const actual = new Set(
      Object.values(synths).flatMap((s) => Object.keys(s.template.toJSON().Outputs).map(documentedOutput)),
    );
    for (const id of actual) expect(named, `the Outputs paragraph names ${id}`).toContain(id);
    const claimed = [...named].filter((name) => /^[A-Z][A-Za-z<>]+$/.test(name));
    for (const id of claimed) expect(actual, `${id} is an output of some variant`).toContain(id);
  });

  it('outputs the same names with either front door, as it says', () => {
    expect(deployDoc()).toContain('They have the same names and shapes with\neither front door.');
    const ids = (s: Synthesized) => Object.keys(s.template.toJSON().Outputs).sort();
    expect(ids(synths.functionUrl)).toEqual(ids(synths.default));
  });
});

describe('docs/deploy.md: What each Lambda gets', () => {
  it('has a paragraph for every function of every variant, naming each variable it gets', () => {
    const paragraphs = lambdaParagraphs();
    for (const [variant, s] of Object.entries(synths)) {
      for (const fn of functionsOf(s)) {
        const paragraph = paragraphs.get(fn.role.toLowerCase());
        expect(paragraph, `"What each Lambda gets" describes the ${fn.role} (${variant})`).toBeDefined();
        // "the edge's variables" (the SES feed runs the edge code): the edge's paragraph's names too.
        const inherited = /the edge's variables/.test(paragraph!) ? backticked(paragraphs.get('edge') ?? '') : [];
        const names = new Set([...backticked(paragraph!), ...inherited]);
        for (const variable of fn.variables) {
          expect(names, `the ${fn.role} paragraph names ${documentedAs(variable)} (${variant})`).toContain(
            documentedAs(variable),
          );
        }
      }
    }
  });

  it('names no variable that the function never gets', () => {
    const given = new Map<string, Set<string>>();
    for (const s of Object.values(synths)) {
      for (const fn of functionsOf(s)) {
        const set = given.get(fn.role.toLowerCase()) ?? new Set<string>();
        for (const v of fn.variables) set.add(documentedAs(v));
        given.set(fn.role.toLowerCase(), set);
      }
    }
    // Set only when configured: variants that set them.
    const configured = synthesizeTemplate({
      postmarkAllowedIps: '3.134.147.250',
      snsMaxAgeSeconds: '3600',
      topicAliases: 'sendgrid:group:1=news',
      topicLabels: 'news=News',
      softBounceLimit: '3',
      softBounceWindowDays: '7',
      reputationWarnBouncePercent: '2',
      reputationWarnComplaintPercent: '0.05',
      reputationBreachBouncePercent: '4',
      reputationBreachComplaintPercent: '0.08',
      reputationMinVolume: '1000',
      ...VARIANTS.sync,
      syncRates: 'ses=10',
      syncConcurrency: 'ses=8',
      syncRetrySeconds: '7200',
    });
    try {
      for (const fn of functionsOf(configured))
        for (const v of fn.variables) given.get(fn.role.toLowerCase())!.add(documentedAs(v));
    } finally {
      configured.cleanup();
    }
    for (const [role, paragraph] of lambdaParagraphs()) {
      const all = given.get(role);
      expect(all, `"What each Lambda gets" describes a ${role}, which no variant has`).toBeDefined();
      // The SES feed "gets the edge's variables": its own paragraph names only what it adds.
      for (const name of backticked(paragraph).filter((n) => /^[A-Z<][A-Z0-9_<>]+$/.test(n))) {
        expect(all, `the ${role} gets ${name}`).toContain(name);
      }
    }
  }, 120_000);
});

describe('docs/deploy.md: Context options', () => {
  it('is the table rendered from the declarations readConfig reads (npm run docs:env)', () => {
    const doc = deployDoc();
    const start = doc.indexOf(CONTEXT_MARKERS.start);
    const end = doc.indexOf(CONTEXT_MARKERS.end);
    expect(start).toBeGreaterThanOrEqual(0);
    expect(doc.slice(start + CONTEXT_MARKERS.start.length, end).trim(), 'stale: run `npm run docs:env`').toBe(
      renderContextTable(),
    );
  });

  it('declares every key the shipped app reads: readConfig and bin/app.ts ask context for nothing else', () => {
    const asked = new Set<string>();
    const app = new App({ context: NO_BUNDLING });
    const node = app.node;
    const original = node.tryGetContext.bind(node);
    node.tryGetContext = (key: string) => {
      asked.add(key);
      return original(key);
    };
    readConfig(node);
    const table = contextKeyRows().map((r) => r.key);
    for (const key of asked) expect(table, `${key} is read but not in the context table`).toContain(key);
    for (const key of Object.keys(CONTEXT_KEYS)) expect(asked, `${key} is declared and read`).toContain(key);
    const app2 = readFileSync(join(ROOT, 'bin', 'app.ts'), 'utf8');
    expect(app2, 'bin/app.ts reads context only through the declarations').not.toMatch(/tryGetContext\('/);
  });

  it('quotes the inbox TTL minimum that synth enforces', () => {
    const minimum = minimumInboxTtlDays();
    const row = contextKeyRows().find((r) => r.key === 'inboxTtlDays')!;
    const quoted = Number(/at least (\d+)/.exec(row.describe)?.[1]);
    expect(quoted).toBe(minimum);
    const stack = (days: number) => () =>
      new RatchetStack(new App({ context: { ...NO_BUNDLING, inboxTtlDays: days } }), `Ttl${days}`);
    expect(stack(quoted)).not.toThrow();
    expect(stack(quoted - 1)).toThrow(ContextError);
  });
});

describe('the files the docs name', () => {
  it.each([
    ['docs/deploy.md', DEPLOY_DOC],
    ['docs/cdk-construct.md', CONSTRUCT_DOC],
  ])('%s names only files that exist', (_name, path) => {
    const doc = readFileSync(path, 'utf8');
    const named = [
      ...backticked(doc).filter((t) => /^(lib|bin|lambdas|test|tools|cost|bench|docs)\/[\w./-]+\.\w+$/.test(t)),
    ].map((t) => join(ROOT, t));
    const linked = [...doc.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)]
      .map((m) => m[1]!)
      .filter((target) => !/^[a-z]+:/.test(target))
      .map((target) => resolve(dirname(path), target));
    expect(named.length + linked.length).toBeGreaterThan(3);
    for (const file of [...named, ...linked]) expect(existsSync(file), file).toBe(true);
  });
});

describe('docs/cdk-construct.md', () => {
  it('lists every readonly part of the construct, and only those', () => {
    const parts = section(constructDoc(), 'Parts and grants');
    const named = new Set(backticked(parts));
    const ratchet = synths.sync.stack.ratchet as unknown as Record<string, unknown>;
    const own = Object.keys(ratchet).filter((k) => k !== 'node' && !k.startsWith('_'));
    for (const key of own) expect(named, `"Parts and grants" names ${key}`).toContain(key);
    for (const method of ['grantReadSuppressions', 'grantSendEvents'])
      expect(typeof ratchet[method], method).toBe('function');
  });

  it('gives every prop context may set a row in the props table', () => {
    const table = section(constructDoc(), 'Props');
    const named = new Set(backticked(table));
    for (const key of [...Object.keys(CONTEXT_KEYS), 'providerSettings']) {
      expect(named, `the props table has ${key}`).toContain(key);
    }
  });
});

describe('an unknown or bad context key', () => {
  it('is refused by name, with the key it was probably meant to be', () => {
    const make = (context: Record<string, unknown>) => () =>
      new RatchetStack(new App({ context: { ...NO_BUNDLING, ...context } }), 'Unknown');
    expect(make({ inboxTtlDay: '30' })).toThrow(
      /^context inboxTtlDay is not a Ratchet setting \(did you mean inboxTtlDays\?\)/,
    );
    expect(make({ inboxTtlDays: 'soon' })).toThrow(ContextError);
    // readConfig in an app of one's own leaves that app's keys alone unless asked to refuse them.
    const own = new App({ context: { myAppStage: 'prod', front: 'function-url' } });
    expect(readConfig(own.node)).toMatchObject({ front: 'function-url' });
    expect(() => readConfig(own.node, { rejectUnknownKeys: true })).toThrow(
      /^context myAppStage is not a Ratchet setting: the keys are in docs\/deploy.md#context-options$/,
    );
    // CDK's own keys (feature flags, lookups, the CLI's) are not Ratchet's to judge.
    expect(make({ '@aws-cdk/core:newStyleStackSynthesis': true, 'cli-telemetry': false })).not.toThrow();
  });
});
