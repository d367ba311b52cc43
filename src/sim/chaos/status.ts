// The parts of a chaos object's status the records and conditions controllers keep: each
// record's way to the desired phase, its bounded event list, and the four conditions.
import type { ChaosRecord, RecordEvent } from "./spec.js";

/** config.ControllerCfg.MaxEvents: a record keeps its last ten apply/recover outcomes. */
const MAX_RECORD_EVENTS = 10;

/** What a record needs to reach the desired phase ("Not Injected" -> "Injected" and back). */
export function opFor(desired: string, phase: string): "Apply" | "Recover" | undefined {
  if (desired === "Run") return phase !== "Injected" ? "Apply" : undefined;
  return phase !== "Not Injected" ? "Recover" : undefined;
}

export function pushRecordEvent(rec: ChaosRecord, ev: RecordEvent) {
  rec.events = [...(rec.events ?? []), ev].slice(-MAX_RECORD_EVENTS);
}

/** The conditions controller's view of the records (and the pause annotation). */
export function conditionsOf(records: ChaosRecord[] | undefined, paused: boolean) {
  const every = (phase: string) => (records?.every((r) => r.phase === phase) ? "True" : "False");
  return [
    { type: "Selected", status: records !== undefined ? "True" : "False" },
    { type: "AllInjected", status: every("Injected") },
    { type: "AllRecovered", status: every("Not Injected") },
    { type: "Paused", status: paused ? "True" : "False" },
  ];
}
