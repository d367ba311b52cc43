// Since when the symptom level's alert fires (src/diagnosis/symptom.ts): when the fault was seen,
// or an incident's onset where its steps left users' requests failing before their end. A cause
// deployed hours before the red herrings was alerted on then, as monitoring would have; an alert
// "since" the last herring, beside logs failing for hours, tells two stories.
import type { Injection } from "../faults/injection.js";
import type { Clock } from "../kube/time.js";

export async function alertSince(time: Clock, injections: Injection[]): Promise<number> {
  const onsets = injections.flatMap((i) => (i.onsetMs === undefined ? [] : [i.onsetMs]));
  return Math.min(await time.clusterNow(), ...onsets);
}
