// The expert tier's fairness on Online-Boutique and Train-Ticket, by hand (npm run test:sweep).
import { expertFairness } from "../tiers/expert.js";

expertFairness("online-boutique");
expertFairness("train-ticket");
