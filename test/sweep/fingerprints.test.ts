// No fingerprint of the harness where a model looks, over every failure type of Online-Boutique
// and Train-Ticket, by hand (npm run test:sweep).
import { noTraces } from "../tiers/fingerprints.js";

noTraces("online-boutique");
noTraces("train-ticket");
