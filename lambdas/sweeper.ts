/** Lambda entry: the sweeper (EventBridge schedule). */
import { configFromEnv, createClients } from './adapters/wiring/config.js';
import { buildSweeperDeps } from './adapters/wiring/sweeper.js';
import { createSweeperHandler } from './handlers/sweeper-handler.js';

const config = configFromEnv(process.env);
export const handler = createSweeperHandler(buildSweeperDeps(config, createClients(config)));
