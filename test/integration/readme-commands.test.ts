/**
 * Every CLI command the README shows runs as pasted. The test reads README.md and every docs/*.md it
 * links to, takes each line of a `sh` block that runs the CLI (`npx ratchet…`, `npm run -s ratchet|send`,
 * `npm run ratchet|send --`), and runs them in order against a real `npm start` (its own data dir), as a
 * newcomer would in a second terminal. A command must exit 0; where the document pipes it to `jq` its
 * stdout must be JSON (and jq must accept it), and where it is captured with `$(…)` the captured text
 * must be one clean value (no npm banner). Not run: synopsis lines (`<email>`, `[--json]`), and any
 * line marked `# not run in tests` (for things like `cdk deploy`).
 */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROVIDERS } from '../../lambdas/core/providers/index.js';
import { type LocalProcess, spawnLocal } from './local-process.js';

const ROOT = resolve(import.meta.dirname, '../..');
const SKIP_MARK = '# not run in tests';
const CLI = /^(npx ratchet(-send)?\b|npm run -s (ratchet|send)\b|npm run (ratchet|send) --)/;

interface ReadmeCommand {
  file: string;
  line: number;
  /** The CLI command itself, without a `| jq …` tail or a `VAR=$(…)` wrapper. */
  command: string;
  /** The `jq` filter the document pipes the output to, if any. */
  jq?: string;
  /** The variable the document captures the output in, if any. */
  captures?: string;
}

/**
 * README.md and the docs/*.md files it links to, in that order (plus any in README_COMMANDS_EXTRA,
 * comma-separated, to try a page before the README links it).
 */
function documents(root = ROOT): string[] {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const linked = [...readme.matchAll(/\]\((?:\.\/)?(docs\/[^)#\s]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]!);
  const extra = (process.env.README_COMMANDS_EXTRA ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  return ['README.md', ...new Set([...linked, ...extra])].filter((f) => existsSync(join(root, f)));
}

/** The runnable CLI lines of a document's shell blocks. */
function extractCommands(file: string, text: string): ReadmeCommand[] {
  const commands: ReadmeCommand[] = [];
  let inShell = false;
  let pending = '';
  let pendingLine = 0;
  text.split('\n').forEach((raw, index) => {
    const fence = /^\s*```\s*([\w-]*)/.exec(raw);
    if (fence) {
      inShell = !inShell && ['sh', 'bash', 'shell', 'console'].includes(fence[1]!);
      pending = '';
      return;
    }
    if (!inShell) return;
    if (pending === '') pendingLine = index + 1;
    // A trailing backslash continues the command on the next line.
    if (/\\\s*$/.test(raw)) {
      pending += `${raw.replace(/\\\s*$/, '')} `;
      return;
    }
    const full = (pending + raw).trim();
    pending = '';
    if (full === '' || full.startsWith('#') || full.includes(SKIP_MARK)) return;
    const parsed = parseLine(stripComment(full));
    if (parsed) commands.push({ file, line: pendingLine, ...parsed });
  });
  return commands;
}

/** Drops a trailing `# comment` (a `#` after whitespace, outside quotes). */
function stripComment(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (quote) {
      if (c === quote) quote = undefined;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '#' && /\s/.test(line[i - 1] ?? ' ')) return line.slice(0, i).trim();
  }
  return line.trim();
}

function parseLine(line: string): Omit<ReadmeCommand, 'file' | 'line'> | undefined {
  let rest = line;
  let captures: string | undefined;
  const capture = /^([A-Za-z_][A-Za-z0-9_]*)=\$\((.*)\)$/.exec(rest);
  if (capture) {
    captures = capture[1];
    rest = capture[2]!.trim();
  }
  let jq: string | undefined;
  const pipe = /\s\|\s*jq\b(.*)$/.exec(rest);
  if (pipe) {
    jq = pipe[1]!.trim() || '.';
    rest = rest.slice(0, pipe.index).trim();
  }
  if (!CLI.test(rest)) return undefined;
  // A synopsis, not a command: placeholders, optional parts, alternatives.
  if (/<[A-Za-z]/.test(rest) || /\[-{1,2}[a-z]|\[[a-z]+\]/.test(rest) || /\s\S+\|\S+/.test(rest)) return undefined;
  return { command: rest, ...(jq ? { jq } : {}), ...(captures ? { captures } : {}) };
}

function shell(command: string, env: Record<string, string>, input?: string) {
  return new Promise<{ code: number; out: string; err: string }>((done) => {
    const child = execFile(
      'bash',
      ['-c', command],
      { cwd: ROOT, env, timeout: 120_000, maxBuffer: 16 * 1024 * 1024 },
      (error, out, err) => done({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, out, err }),
    );
    if (input !== undefined) child.stdin!.end(input);
  });
}

/** Parses as one JSON document, or as JSON lines. */
function parsesAsJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    return (
      lines.length > 0 &&
      lines.every((l) => {
        try {
          JSON.parse(l);
          return true;
        } catch {
          return false;
        }
      })
    );
  }
}

const hasJq = existsSync('/usr/bin/jq') || existsSync('/usr/local/bin/jq');
const commands = documents().flatMap((file) => extractCommands(file, readFileSync(join(ROOT, file), 'utf8')));

describe('the README commands run as pasted', () => {
  let stack: LocalProcess;
  const captured: Record<string, string> = {};
  let env: Record<string, string>;
  beforeAll(async () => {
    stack = spawnLocal();
    await stack.ready(90_000);
    env = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    // A newcomer's second terminal: no PORT (the CLIs find the stack through its local.json), no provider variables.
    for (const k of [
      'PORT',
      'DYNAMODB_ENDPOINT',
      'SQS_ENDPOINT',
      'QUEUE_URL',
      'DLQ_URL',
      'INBOX_TABLE',
      'SUPPRESSION_TABLE',
      ...PROVIDERS.map((p) => p.credentialsVariable),
    ])
      delete env[k];
    env.RATCHET_DATA_DIR = stack.dataDir;
  }, 120_000);
  afterAll(async () => {
    await stack?.stop();
    stack?.cleanup();
  });

  it('finds commands in the README', () => {
    expect(commands.length).toBeGreaterThan(0);
  });

  // In document order: later commands build on earlier ones (send, then get).
  it.each(commands.map((c) => [`${c.file}:${c.line} ${c.command}`, c] as const))(
    '%s',
    async (_name, c) => {
      const result = await shell(c.command, { ...env, ...captured });
      expect(
        result.code,
        `${c.file}:${c.line} exited ${result.code}\nstdout: ${result.out}\nstderr: ${result.err}`,
      ).toBe(0);
      if (c.jq !== undefined) {
        expect(parsesAsJson(result.out), `${c.file}:${c.line} is piped to jq but printed:\n${result.out}`).toBe(true);
        if (hasJq) expect((await shell(`jq ${c.jq}`, env, result.out)).code).toBe(0);
      }
      if (c.captures !== undefined) {
        const value = result.out.trim();
        expect(value.split('\n'), `${c.file}:${c.line} is captured with $(…) but printed:\n${result.out}`).toHaveLength(
          1,
        );
        expect(value).not.toMatch(/^> /);
        if (/^https?:/.test(value)) expect(() => new URL(value)).not.toThrow();
        else if (/^[[{]/.test(value)) expect(parsesAsJson(value)).toBe(true);
        captured[c.captures] = value;
      }
    },
    120_000,
  );
});

describe('what the extractor takes from a document', () => {
  it('takes CLI lines with their jq filter or captured variable; skips synopses, other commands, comments and marked lines', () => {
    const text = [
      'text',
      '```sh',
      'npx ratchet suppressions list | jq -c .email   # one per line',
      'URL=$(npx ratchet unsubscribe-link someone@example.com --topic news)',
      'npm run -s send -- ses bounce a@example.com',
      'npm run ratchet -- doctor',
      'npx ratchet suppressions get <email> [--json]',
      'npx ratchet suppressions export --format jsonl|csv',
      'npx cdk deploy',
      'npx ratchet ses redrive   # not run in tests',
      '# npx ratchet doctor',
      'npx ratchet suppressions add b@example.com \\',
      '  --reason "asked by phone"',
      '```',
      '```ts',
      'npx ratchet doctor',
      '```',
    ].join('\n');
    expect(extractCommands('X.md', text)).toEqual([
      { file: 'X.md', line: 3, command: 'npx ratchet suppressions list', jq: '-c .email' },
      {
        file: 'X.md',
        line: 4,
        command: 'npx ratchet unsubscribe-link someone@example.com --topic news',
        captures: 'URL',
      },
      { file: 'X.md', line: 5, command: 'npm run -s send -- ses bounce a@example.com' },
      { file: 'X.md', line: 6, command: 'npm run ratchet -- doctor' },
      { file: 'X.md', line: 12, command: 'npx ratchet suppressions add b@example.com    --reason "asked by phone"' },
    ]);
  });

  it('reads the docs the README links to', () => {
    expect(documents()[0]).toBe('README.md');
    expect(documents()).toContain('docs/import-formats.md');
  });
});
