export * from './counts.js';
export * from './evaluate.js';
export * from './sender.js';
export * from './settings.js';
export * from './state.js';
