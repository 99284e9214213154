/** The in-memory fakes against the same port contracts the real adapters pass (test/integration/stores.test.ts). */
import { describeControlLedgerContract } from '../../contracts/control-ledger.contract.js';
import { describeEventQueueContract } from '../../contracts/event-queue.contract.js';
import { describeInboxStoreContract } from '../../contracts/inbox-store.contract.js';
import { describeNonceStoreContract } from '../../contracts/nonce-store.contract.js';
import { describeSuppressionStoreContract } from '../../contracts/suppression-store.contract.js';
import { MemoryNonceStore } from '../support/nonces.js';
import { MemoryInbox, MemoryLedger, MemoryQueue, MemorySuppressionStore } from './fakes.js';

describeInboxStoreContract('MemoryInbox', (ttlSeconds) => {
  const inbox = new MemoryInbox(undefined, ttlSeconds);
  return {
    inbox,
    storedRaw: async (pk) => inbox.rows.get(pk)?.raw,
    failNextStore: () => {
      inbox.failNextStores = 1;
    },
  };
});

describeEventQueueContract('MemoryQueue', () => {
  const queue = new MemoryQueue();
  return {
    queue,
    receiveAll: async () => queue.sent.splice(0),
    failNextSend: () => {
      queue.failNext = 1;
    },
  };
});

describeControlLedgerContract('MemoryLedger', () => new MemoryLedger());

describeNonceStoreContract('MemoryNonceStore', (now) => new MemoryNonceStore(now));

describeSuppressionStoreContract('MemorySuppressionStore', () => {
  const store = new MemorySuppressionStore();
  return { store, read: async (email) => store.records.get(email)?.record };
});
