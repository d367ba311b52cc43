// A small, generic stage engine in the spirit of KWOK's Stage objects. A subject (a pod, a
// container) has facts; the first stage of its kind whose `when` matches them is the one that
// applies; after its delay the caller applies `next`, records `events` and runs `actions`.
// Nothing here knows about Kubernetes: the text and the transitions are in src/sim/stages/.

export type Fact = string | number | boolean | undefined;
export type Facts = Record<string, Fact>;
export type Vars = Record<string, unknown>;

export interface StageEvent {
  type?: "Normal" | "Warning";
  reason: string;
  message: string;
  /** Who reports it (default: the kubelet). */
  source?: string;
}

export interface RenderedEvent extends StageEvent {
  type: "Normal" | "Warning";
}

export interface Stage {
  name: string;
  for: string;
  when: Record<string, Fact | Fact[]>;
  /** Milliseconds, or the name of a delay the caller computes. */
  delay?: number | string;
  next?: Record<string, unknown>;
  events?: StageEvent[];
  actions?: string[];
}

/** What the caller supports, to reject a stage file with typos when it is loaded. */
export interface StageSchema {
  facts: Record<string, readonly string[]>;
  fields: Record<string, readonly string[]>;
  actions: Record<string, readonly string[]>;
  delays: readonly string[];
}

/**
 * A stage that matched and waits for its delay. The wait restarts when another stage applies, or
 * when the subject's `sig` fact changes (e.g. the container's image).
 */
export interface Pending {
  stage: string;
  sig: string;
  due: number;
}

export interface Subject {
  pending?: Pending;
}

export function factMatches(want: Fact | Fact[], have: Fact): boolean {
  if (Array.isArray(want)) return want.some((w) => factMatches(w, have));
  if (typeof want === "string" && want.startsWith("!")) return String(have) !== want.slice(1);
  return want === have || (typeof want === "string" && String(have) === want);
}

const TEMPLATE = /\{\{\s*([\w.]+)\s*\}\}/g;
const WHOLE = /^\{\{\s*([\w.]+)\s*\}\}$/;

/** Fill {{name}} placeholders; unknown names are an error, so a typo in YAML shows up at once. */
export function render(template: string, vars: Vars): string {
  return template.replace(TEMPLATE, (_, k: string) => {
    if (!(k in vars)) throw new Error(`template "${template}" uses {{${k}}}, which is not defined`);
    return String(vars[k]);
  });
}

/** Like render, but a value that is exactly one placeholder keeps the variable's type. */
export function renderValue(v: unknown, vars: Vars): unknown {
  if (typeof v !== "string") return v;
  const whole = v.match(WHOLE);
  if (whole && whole[1] in vars) return vars[whole[1]];
  return render(v, vars);
}

export class StageEngine {
  private readonly byKind = new Map<string, Stage[]>();

  constructor(stages: Stage[], schema: StageSchema) {
    for (const s of stages) {
      const problems = check(s, schema);
      if (problems.length) throw new Error(`stage ${s.name ?? "(unnamed)"}: ${problems.join("; ")}`);
      const list = this.byKind.get(s.for) ?? [];
      list.push(s);
      this.byKind.set(s.for, list);
    }
  }

  select(kind: string, facts: Facts): Stage | undefined {
    return this.byKind
      .get(kind)
      ?.find((s) => Object.entries(s.when).every(([k, w]) => factMatches(w, facts[k])));
  }

  /**
   * The stage that fires now for this subject, if any. A stage that must wait records when it is
   * due in `subject.pending`; the caller wakes the subject up then.
   */
  due(
    kind: string,
    subject: Subject,
    facts: Facts,
    now: number,
    delayOf: (name: string) => number,
  ): Stage | undefined {
    const stage = this.select(kind, facts);
    if (!stage) {
      subject.pending = undefined;
      return undefined;
    }
    const sig = `${stage.name}|${String(facts.sig ?? "")}`;
    if (subject.pending?.sig !== sig) {
      const d =
        stage.delay === undefined ? 0 : typeof stage.delay === "number" ? stage.delay : delayOf(stage.delay);
      subject.pending = { stage: stage.name, sig, due: now + Math.max(0, d) };
    }
    if (now < subject.pending.due) return undefined;
    subject.pending = undefined;
    return stage;
  }

  /** The field values a stage sets, rendered. */
  nextOf(stage: Stage, vars: Vars): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(stage.next ?? {})) out[k] = renderValue(v, vars);
    return out;
  }

  eventsOf(stage: Stage, vars: Vars): RenderedEvent[] {
    return (stage.events ?? []).map((e) => ({
      type: e.type ?? "Normal",
      reason: e.reason,
      message: render(e.message, vars),
      source: e.source,
    }));
  }
}

function check(s: Stage, schema: StageSchema): string[] {
  const out: string[] = [];
  if (!s.name) out.push("has no name");
  const facts = schema.facts[s.for];
  if (!facts) return [...out, `unknown subject kind "${s.for}"`];
  if (!s.when || typeof s.when !== "object") out.push("has no `when`");
  for (const k of Object.keys(s.when ?? {})) if (!facts.includes(k)) out.push(`unknown fact "${k}"`);
  for (const k of Object.keys(s.next ?? {}))
    if (!schema.fields[s.for].includes(k)) out.push(`cannot set "${k}"`);
  for (const a of s.actions ?? []) if (!schema.actions[s.for].includes(a)) out.push(`unknown action "${a}"`);
  if (typeof s.delay === "string" && !schema.delays.includes(s.delay)) out.push(`unknown delay "${s.delay}"`);
  for (const e of s.events ?? [])
    if (!e.reason || typeof e.message !== "string") out.push("an event needs a reason and a message");
  return out;
}
