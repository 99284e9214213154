export * from './counts.js';
export * from './sender.js';
export * from './settings.js';
export * from './state.js';
export * from './evaluate.js';
