/**
 * `.data/local.json`: how the CLIs find the running local stack (its port and the embedded DynamoDB's
 * endpoint) with no setup. Written by `npm start`, removed on clean shutdown.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface LocalState {
  pid: number;
  url: string;
  port: number;
  region: string;
  dynamoEndpoint: string;
  sqsEndpoint: string;
  inboxTable: string;
  suppressionTable: string;
  queueUrl: string;
  deadLetterUrl: string;
  /** Where unsubscribe links point (UNSUBSCRIBE_BASE_URL, default http://localhost:$PORT). */
  unsubscribeBaseUrl?: string;
  /** The generated demo key, present only while UNSUBSCRIBE_SECRETS is unset, so the CLI can issue links. */
  unsubscribeDemoKey?: string;
  /** The sync queue and its dead letters, when SYNC_PROVIDERS is set. */
  syncQueueUrl?: string;
  syncDeadLetterUrl?: string;
  syncProviders?: string[];
}

export function statePath(dataDir: string): string {
  return join(dataDir, 'local.json');
}

export function writeState(dataDir: string, state: LocalState): void {
  writeFileSync(statePath(dataDir), JSON.stringify(state, null, 2));
}

export function readState(dataDir: string): LocalState | undefined {
  const file = statePath(dataDir);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as LocalState;
}

export function clearState(dataDir: string): void {
  rmSync(statePath(dataDir), { force: true });
}
