/** Lambda entry: the edge. Clients and adapters are built once per container, at module scope. */
import { buildEdge, configFromEnv, createClients } from './adapters/wiring.js';
import { createEdgeHandler } from './handlers/edge-handler.js';

const config = configFromEnv(process.env);
export const handler = createEdgeHandler(buildEdge(config, createClients(config)));
