/**
 * Nothing the local runtime starts is reachable from the network. The emulators
 * authenticate nothing, so a reachable SQS emulator would let anyone on the LAN suppress an address.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLoopbackAddress, loopbackPort } from '../../lib/local/emulators.js';
import { type LocalState, readState } from '../../lib/local/state.js';
import { startTestStack, type TestStack } from './harness.js';
import { type LocalProcess, spawnLocal } from './local-process.js';

interface Listener {
  address: string;
  port: number;
}

/** Listening TCP sockets of one process: its socket inodes (/proc/<pid>/fd) matched in /proc/net/tcp{,6}. */
function listeningSockets(pid: number): Listener[] {
  const inodes = new Set<string>();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]!);
    } catch {
      // The fd closed while we listed it.
    }
  }
  const listeners: Listener[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9]!)) continue; // 0A = LISTEN
      const [hex, port] = cols[1]!.split(':');
      listeners.push({ address: decodeAddress(hex!), port: parseInt(port!, 16) });
    }
  }
  return listeners;
}

/** /proc/net/tcp writes addresses as host-order 32-bit words (little-endian here). */
function decodeAddress(hex: string): string {
  const words = hex.match(/.{8}/g)!.map((w) => Buffer.from(w, 'hex').reverse());
  if (words.length === 1) return [...words[0]!].join('.');
  const bytes = Buffer.concat(words);
  if (bytes.subarray(0, 12).equals(Buffer.from('00000000000000000000ffff', 'hex')))
    return `::ffff:${[...bytes.subarray(12)].join('.')}`;
  const groups = bytes
    .toString('hex')
    .match(/.{4}/g)!
    .map((g) => g.replace(/^0+(?=.)/, ''));
  return groups.join(':').replace(/(^|:)0(:0)+(:|$)/, '::');
}

const isLoopback = (address: string) =>
  /^(::ffff:)?127\./.test(address) || address === '::1' || address === '0:0:0:0:0:0:0:1';

/** Addresses of this machine that another machine could use (link-local IPv6 needs a zone; skipped). */
function externalAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flat()
    .filter((a) => a && !a.internal && !(a.family === 'IPv6' && a.address.toLowerCase().startsWith('fe80')))
    .map((a) => a!.address);
}

function tryConnect(host: string, port: number): Promise<'connected' | string> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    socket.setTimeout(2000);
    socket.once('connect', () => {
      socket.destroy();
      resolve('connected');
    });
    socket.once('timeout', () => {
      socket.destroy();
      resolve('timeout');
    });
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
  });
}

const portOf = (url: string) => Number(new URL(url).port);
const hasProc = (() => {
  try {
    readFileSync('/proc/net/tcp');
    return true;
  } catch {
    return false;
  }
})();
const external = externalAddresses();

describe('npm start listens on loopback only', () => {
  let local: LocalProcess;
  let state: LocalState;

  beforeAll(async () => {
    local = spawnLocal();
    await local.ready();
    state = readState(local.dataDir)!;
  });
  afterAll(async () => {
    await local?.stop();
    local?.cleanup();
  });

  it.skipIf(!hasProc)('has no listening socket on a non-loopback address (read from /proc)', () => {
    const listeners = listeningSockets(local.child.pid!);
    const ports = listeners.map((l) => l.port).sort();
    // The three embedded services, found by their ports: proves the scan sees what it must judge.
    expect(ports).toEqual(
      expect.arrayContaining([state.port, portOf(state.dynamoEndpoint), portOf(state.sqsEndpoint)].sort()),
    );
    expect(listeners.filter((l) => !isLoopback(l.address))).toEqual([]);
  });

  it.skipIf(external.length === 0)(
    `refuses connections through this machine's other addresses (${external.join(', ') || 'none: skipped'})`,
    async () => {
      for (const [name, port] of [
        ['HTTP front', state.port],
        ['dynalite', portOf(state.dynamoEndpoint)],
        ['fauxqs', portOf(state.sqsEndpoint)],
      ] as const) {
        // Reachable on loopback, so a refusal below is about the address, not a dead service.
        expect(await tryConnect('127.0.0.1', port), `${name} on loopback`).toBe('connected');
        for (const address of external) {
          expect(await tryConnect(address, port), `${name} via ${address}:${port}`).toBe('ECONNREFUSED');
        }
      }
    },
  );
});

describe('the integration harness starts the same loopback-only services', () => {
  let stack: TestStack;
  beforeAll(async () => {
    stack = await startTestStack();
  });
  afterAll(() => stack?.stop());

  it.skipIf(external.length === 0)('refuses its emulators and front through non-loopback addresses', async () => {
    const ports = [stack.port, portOf(stack.config.dynamoEndpoint!), portOf(stack.config.sqsEndpoint!)];
    for (const port of ports) {
      expect(await tryConnect('127.0.0.1', port)).toBe('connected');
      for (const address of external)
        expect(await tryConnect(address, port), `${address}:${port}`).toBe('ECONNREFUSED');
    }
  });
});

describe('the bind check behind every embedded listener', () => {
  it('recognises loopback addresses only', () => {
    for (const address of ['127.0.0.1', '127.255.0.9', '::1', '::ffff:127.0.0.1'])
      expect(isLoopbackAddress(address), address).toBe(true);
    for (const address of ['0.0.0.0', '::', '192.0.2.2', 'fd00::2', '::ffff:10.0.0.1', '128.0.0.1'])
      expect(isLoopbackAddress(address), address).toBe(false);
  });

  it('closes and refuses a server that ended up on the wildcard address', async () => {
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '0.0.0.0', resolve));
    await expect(loopbackPort(server, 'probe', () => new Promise((r) => server.close(() => r())))).rejects.toThrow(
      'probe bound to 0.0.0.0, not loopback: refusing to run it',
    );
    expect(server.listening).toBe(false);
  });
});
