/** Lambda entry: the edge. Clients and adapters are built once per container, at module scope. */

import { buildUnsubscribeEndpoint } from './adapters/unsubscribe-wiring.js';
import { configFromEnv, createClients } from './adapters/wiring/config.js';
import { buildEdge } from './adapters/wiring/edge.js';
import { createEdgeHandler } from './handlers/edge-handler.js';

const config = configFromEnv(process.env);
const clients = createClients(config);
export const handler = createEdgeHandler(buildEdge(config, clients), {
  unsubscribe: buildUnsubscribeEndpoint(config, clients),
});
