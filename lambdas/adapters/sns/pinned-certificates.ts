/**
 * Certificates from a local directory, for the local runtime and tests (no AWS host to fetch from).
 * The file is named after the URL's last path segment, taken with `path.basename` and nothing else,
 * so no part of the attacker-supplied URL can steer the read outside the directory.
 */
import type { KeyObject } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import * as path from 'node:path';
import { AuthenticationError, TransientError } from '../../core/errors.js';
import type { CertificateSource } from '../../core/provider.js';
import { publicKeyFromCertificate } from './certificate-key.js';

const NOT_THERE = new Set(['ENOENT', 'ENOTDIR', 'EISDIR']);

export class PinnedDirectoryCertificates implements CertificateSource {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly directory: string) {}

  async get(url: string): Promise<KeyObject> {
    const name = fileNameFor(url);
    const cached = this.keys.get(name);
    if (cached) return cached;
    let pem: Buffer;
    try {
      pem = await readFile(path.join(this.directory, name));
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      // Not pinned is a verdict on the request (401), not an outage worth an SNS retry.
      if (code !== undefined && NOT_THERE.has(code)) {
        throw new AuthenticationError('no pinned SNS certificate for this SigningCertURL', { cause: error });
      }
      throw new TransientError('pinned SNS certificate could not be read', { cause: error });
    }
    const key = publicKeyFromCertificate(pem);
    this.keys.set(name, key);
    return key;
  }
}

/** The URL path's basename; refuses anything that is not a plain file name on this platform too. */
export function fileNameFor(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    throw new AuthenticationError('SigningCertURL is not a URL');
  }
  const name = path.basename(path.posix.basename(pathname));
  if (
    name === '' ||
    name === '.' ||
    name === '..' ||
    name.includes('/') ||
    name.includes('\\') ||
    name.includes('\0')
  ) {
    throw new AuthenticationError('SigningCertURL does not name a certificate file');
  }
  return name;
}
