// `npm run mutation`: Stryker through its API. Stryker 10's CLI refuses Node < 22 at start-up
// (an engines guard); the API has no such guard, and this project runs on Node 20 locally and in CI
// while Lambda runs 22. Options come from stryker.config.json; extra CLI args are passed as --mutate.
// Imported by path: the package entry also loads the CLI module, whose top level runs the guard.
import { Stryker } from '../node_modules/@stryker-mutator/core/dist/src/stryker.js';

const mutate = process.argv.slice(2);
const stryker = new Stryker({ configFile: 'stryker.config.json', ...(mutate.length ? { mutate } : {}) });
const results = await stryker.runMutationTest();
const killed = results.filter((r) => ['Killed', 'Timeout'].includes(r.status)).length;
const valid = results.filter((r) => !['CompileError', 'RuntimeError', 'Ignored'].includes(r.status)).length;
console.log(`mutation score: ${valid ? ((100 * killed) / valid).toFixed(2) : 'n/a'}% (${killed}/${valid})`);
