/**
 * Assembles the pipeline from configuration: the one place that knows which adapter backs which port.
 * Split per role (wiring/) so each Lambda bundle carries only its own dependencies; this barrel is for
 * the local runtime, which runs all three roles in one process.
 */
export { buildInbox, type Clients, configFromEnv, createClients, type RuntimeConfig } from './wiring/config.js';
export { buildConsumerDeps } from './wiring/consumer.js';
export { buildEdge } from './wiring/edge.js';
export { buildSesFeed } from './wiring/ses-feed.js';
