/** The console's routes: `METHOD path` → handler. POSTs reach a handler only with a good CSRF token. */
import { addressAction, addressPage, confirmAddressAction } from './address-page.js';
import { healthPage } from './health-page.js';
import { bulkConfirm, bulkReactivate } from './lists-bulk.js';
import { listsCsv, listsPage } from './lists-page.js';
import { reputationPage } from './reputation-page.js';
import type { Route } from './services.js';

export const routes: Record<string, Route> = {
  'GET /': async () => ({ redirect: '/address' }),
  'GET /address': addressPage,
  'GET /address/confirm': confirmAddressAction,
  'POST /address/action': addressAction,
  'GET /lists': listsPage,
  'GET /lists.csv': listsCsv,
  'GET /lists/reactivate': bulkConfirm,
  'POST /lists/reactivate': bulkReactivate,
  'GET /health': healthPage,
  'GET /reputation': reputationPage,
};
