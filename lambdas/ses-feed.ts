/**
 * Lambda entry: the SES feed (SQS event source on `<resourcePrefix>-ses-notifications`, with
 * ReportBatchItemFailures). The edge's environment without the other providers' secret ARNs, plus
 * SES_DEAD_LETTER_QUEUE_URL. Clients and adapters are built once per container, at module scope.
 */
import { configFromEnv, createClients } from './adapters/wiring/config.js';
import { buildSesFeed } from './adapters/wiring/ses-feed.js';
import { createSesFeedHandler } from './handlers/ses-feed-handler.js';

const config = configFromEnv(process.env);
export const handler = createSesFeedHandler(buildSesFeed(config, createClients(config)));
