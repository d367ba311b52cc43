// The expert tier's fairness on Simple-Micro (the other systems: test/sweep/expert.test.ts).
import { expertFairness } from "./expert.js";

expertFairness("simple-micro");
