// The failure matrix (failures-matrix.ts) for train-ticket: each failure injected with the shipped
// template or patch, its symptoms checked in what kubectl prints, and recovery.
import { describeMatrix } from "./failures-matrix.js";

describeMatrix("train-ticket");
