/** Lambda entry: the sweeper (EventBridge schedule). */
import { buildSweeperDeps, configFromEnv, createClients } from './adapters/wiring.js';
import { createSweeperHandler } from './handlers/sweeper-handler.js';

const config = configFromEnv(process.env);
export const handler = createSweeperHandler(buildSweeperDeps(config, createClients(config)));
