// The incident tier on Online-Boutique and Train-Ticket, every scenario each applies to, by hand
// (Simple-Micro's runs in the tier lane): the oracle repairs every one at the full and the symptom
// level, noop and the runbook none. Helpers: test/tiers/incident.ts.
import { incidentFairness } from "../tiers/incident.js";

incidentFairness("online-boutique");
incidentFairness("train-ticket");
