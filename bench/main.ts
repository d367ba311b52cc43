// `npm run bench [-- name...]`: performance figures, printed. Targets are printed beside them;
// benchmarks measure, they do not fail.
import { benchApi } from "./api.js";
import { benchClock } from "./clock.js";
import { benchDeploy } from "./deploy.js";
import {
  benchConfinement,
  benchExpert,
  benchIncident,
  benchParallel,
  benchPhases,
  benchRemediationTime,
  benchSeven,
  benchTiers,
} from "./runs.js";

const BENCHES: Record<string, () => Promise<void>> = {
  api: benchApi,
  clock: benchClock,
  deploy: benchDeploy,
  seven: benchSeven,
  phases: benchPhases,
  tiers: benchTiers,
  expert: benchExpert,
  incident: benchIncident,
  parallel: benchParallel,
  time: benchRemediationTime,
  confinement: benchConfinement,
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith("-"));
for (const name of wanted.length ? wanted : Object.keys(BENCHES)) {
  const run = BENCHES[name];
  if (!run) {
    process.stderr.write(`unknown benchmark "${name}"; choose from: ${Object.keys(BENCHES).join(", ")}\n`);
    process.exit(2);
  }
  const t = performance.now();
  await run();
  process.stdout.write(`  (${name}: ${((performance.now() - t) / 1000).toFixed(1)} s)\n\n`);
}
process.exit(0);
