// Train-Ticket's medium and hard tiers, every case, by hand (its easy tier: the tier lane).
import { oracleAndNoop } from "../tiers/oracle-noop.js";

oracleAndNoop("train-ticket", ["medium", "hard"]);
