// `npm run mutation [-- --report <name>] [globs...]`: Stryker through its API. Stryker 10's CLI refuses
// Node < 22 at start-up (an engines guard); the API has no such guard, and this project runs on Node 20
// locally and in CI while Lambda runs 22. Options come from stryker.config.json; globs replace `mutate`.
// `--report <name>` writes reports/mutation/<name>.json (and its own incremental file), so the core can be
// run a folder at a time on a small machine and `npm run mutation:report` adds the parts up.
// Imported by path: the package entry also loads the CLI module, whose top level runs the guard.
import { Stryker } from '../node_modules/@stryker-mutator/core/dist/src/stryker.js';

const args = process.argv.slice(2);
const at = args.indexOf('--report');
const name = at === -1 ? undefined : args[at + 1];
if (at !== -1 && !/^[\w.-]+$/.test(name ?? '')) throw new Error('--report needs a name (letters, digits, . _ -)');
const mutate = args.filter((_, i) => at === -1 || (i !== at && i !== at + 1));

const options = { configFile: 'stryker.config.json', ...(mutate.length ? { mutate } : {}) };
if (name) {
  Object.assign(options, {
    jsonReporter: { fileName: `reports/mutation/${name}.json` },
    incrementalFile: `reports/mutation/${name}-incremental.json`,
    tempDirName: `.stryker-tmp/${name}`,
  });
}
const stryker = new Stryker(options);
const results = await stryker.runMutationTest();
const killed = results.filter((r) => ['Killed', 'Timeout'].includes(r.status)).length;
const valid = results.filter((r) => !['CompileError', 'RuntimeError', 'Ignored'].includes(r.status)).length;
console.log(`mutation score: ${valid ? ((100 * killed) / valid).toFixed(2) : 'n/a'}% (${killed}/${valid})`);
