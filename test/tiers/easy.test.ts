// The easy tiers of Online-Boutique and Train-Ticket, every case (Simple-Micro's three tiers:
// simple-micro.test.ts; the other tiers of these two: test/sweep).
import { oracleAndNoop } from "./oracle-noop.js";

oracleAndNoop("online-boutique", ["easy"]);
oracleAndNoop("train-ticket", ["easy"]);
