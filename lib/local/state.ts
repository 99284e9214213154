/**
 * `.data/local.json`: how the CLIs find the running local stack (its port and the embedded DynamoDB's
 * endpoint) with no setup. Written by `npm start`, removed on clean shutdown.
 */
import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  /** The reputation table (absent in a state file an older version wrote). */
  reputationTable?: string;
  queueUrl: string;
  deadLetterUrl: string;
  /** The SES feed (`SES_QUEUE_NAME`) and the SES dead-letter queue (`SES_DEAD_LETTER_QUEUE`). */
  sesQueueUrl: string;
  sesDeadLetterUrl: string;
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

/**
 * Owner-only (0600): the file carries the demo unsubscribe key while one is in use. `mode` applies only
 * when the file is created, so one left by an older run is narrowed too.
 */
export function writeState(dataDir: string, state: LocalState): void {
  const file = statePath(dataDir);
  writeFileSync(file, JSON.stringify(state, null, 2), { mode: 0o600 });
  chmodSync(file, 0o600);
}

export function readState(dataDir: string): LocalState | undefined {
  const file = statePath(dataDir);
  if (!existsSync(file)) return undefined;
  return JSON.parse(readFileSync(file, 'utf8')) as LocalState;
}

export function clearState(dataDir: string): void {
  rmSync(statePath(dataDir), { force: true });
}
