/** PinnedDirectoryCertificates: the file is always `<dir>/<basename of the URL path>`, nothing else. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PinnedDirectoryCertificates } from '../../../lambdas/adapters/sns/certificates.js';
import { fileNameFor } from '../../../lambdas/adapters/sns/pinned-certificates.js';
import { AuthenticationError } from '../../../lambdas/core/errors.js';
import { otherCertificate, rejection, signingCertificate } from './fixtures.js';

const NAME = 'SimpleNotificationService-0123456789abcdef.pem';
let root: string;
let dir: string;

beforeAll(() => {
  root = mkdtempSync(path.join(tmpdir(), 'ratchet-pinned-'));
  dir = path.join(root, 'pinned');
  mkdirSync(dir);
  writeFileSync(path.join(dir, NAME), signingCertificate().certificatePem);
  writeFileSync(path.join(dir, 'garbage.pem'), 'not a certificate');
  // A certificate *outside* the pinned directory that traversal would reach.
  writeFileSync(path.join(root, 'outside.pem'), otherCertificate().certificatePem);
  mkdirSync(path.join(dir, 'subdir.pem'));
});

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('PinnedDirectoryCertificates', () => {
  it('serves the pinned certificate named by the URL basename', async () => {
    const key = await new PinnedDirectoryCertificates(dir).get(`https://sns.us-east-1.amazonaws.com/${NAME}`);
    expect(key.equals(signingCertificate().publicKey)).toBe(true);
  });

  it('caches the parsed key', async () => {
    const source = new PinnedDirectoryCertificates(dir);
    const url = `https://sns.us-east-1.amazonaws.com/${NAME}`;
    expect(await source.get(url)).toBe(await source.get(url));
  });

  it('treats a missing file as an authentication failure (401), not transient', async () => {
    const error = await rejection(
      new PinnedDirectoryCertificates(dir).get(
        'https://sns.us-east-1.amazonaws.com/SimpleNotificationService-ffff.pem',
      ),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.status).toBe(401);
  });

  it('treats a missing directory as an authentication failure', async () => {
    const error = await rejection(
      new PinnedDirectoryCertificates(path.join(root, 'nope')).get(`https://x.example/${NAME}`),
    );
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('treats a file that is not a certificate as 401', async () => {
    const error = await rejection(new PinnedDirectoryCertificates(dir).get('https://x.example/garbage.pem'));
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('treats a directory with the name as missing', async () => {
    expect(await rejection(new PinnedDirectoryCertificates(dir).get('https://x.example/subdir.pem'))).toBeInstanceOf(
      AuthenticationError,
    );
  });

  it.each([
    'https://x.example/../outside.pem',
    'https://x.example/a/..%2F..%2Foutside.pem',
    'https://x.example/%2E%2E/outside.pem',
    'https://x.example/pinned/../../outside.pem',
  ])('never reads outside the directory (%s)', async (url) => {
    // The outside file exists and holds a valid certificate: only the basename rule keeps it out.
    const error = await rejection(new PinnedDirectoryCertificates(dir).get(url));
    expect(error).toBeInstanceOf(AuthenticationError);
  });

  it('uses only the basename: a nested URL path still reads the file from the directory itself', async () => {
    const key = await new PinnedDirectoryCertificates(dir).get(`https://x.example/deep/er/${NAME}`);
    expect(key.equals(signingCertificate().publicKey)).toBe(true);
  });

  it.each([
    ['https://x.example/', /does not name/],
    ['https://x.example/..', /does not name/],
    ['not a url', /not a URL/],
  ])('refuses %j', (url, message) => {
    expect(() => fileNameFor(url)).toThrow(message);
  });

  it('takes the basename of the percent-encoded path, never decoding it into separators', () => {
    expect(fileNameFor('https://x.example/a/..%2F..%2Foutside.pem')).toBe('..%2F..%2Foutside.pem');
  });
});
