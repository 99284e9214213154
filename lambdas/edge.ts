/** Lambda entry: the edge. Clients and adapters are built once per container, at module scope. */
import { configFromEnv, createClients } from './adapters/wiring/config.js';
import { buildEdge } from './adapters/wiring/edge.js';
import { createEdgeHandler } from './handlers/edge-handler.js';

const config = configFromEnv(process.env);
export const handler = createEdgeHandler(buildEdge(config, createClients(config)));
