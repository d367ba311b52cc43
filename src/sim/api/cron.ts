// CronJob schedules, as the cronjob controller parses them (robfig/cron's standard parser, which
// pkg/controller/cronjob uses): five fields (minute hour day-of-month month day-of-week) with
// `*`, `?`, lists, ranges, steps and names (JAN, MON), or a descriptor (@hourly, @daily,
// @midnight, @weekly, @monthly, @yearly, @annually). Times are UTC (no timeZone support).

interface Field {
  min: number;
  max: number;
  names?: string[];
}

const FIELDS: Field[] = [
  { min: 0, max: 59 },
  { min: 0, max: 23 },
  { min: 1, max: 31 },
  {
    min: 1,
    max: 12,
    names: ["JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"],
  },
  { min: 0, max: 6, names: ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"] },
];

const DESCRIPTORS: Record<string, string> = {
  "@yearly": "0 0 1 1 *",
  "@annually": "0 0 1 1 *",
  "@monthly": "0 0 1 * *",
  "@weekly": "0 0 * * 0",
  "@daily": "0 0 * * *",
  "@midnight": "0 0 * * *",
  "@hourly": "0 * * * *",
};

export interface Schedule {
  sets: Set<number>[];
  /** Day-of-month or day-of-week given as `*` (then both must match, else either). */
  domStar: boolean;
  dowStar: boolean;
}

function value(s: string, f: Field): number {
  const i = f.names?.indexOf(s.toUpperCase()) ?? -1;
  if (i >= 0) return i + f.min;
  if (!/^\d+$/.test(s))
    throw new Error(`failed to parse int from ${s}: strconv.Atoi: parsing "${s}": invalid syntax`);
  return Number(s);
}

function parseField(expr: string, f: Field): Set<number> {
  const out = new Set<number>();
  for (const part of expr.split(",")) {
    const [range, stepText] = part.split("/");
    const step = stepText === undefined ? 1 : value(stepText, { min: 0, max: 0 });
    let lo: number;
    let hi: number;
    if (range === "*" || range === "?") [lo, hi] = [f.min, f.max];
    else if (range.includes("-")) {
      const [a, b] = range.split("-");
      [lo, hi] = [value(a, f), value(b, f)];
    } else {
      lo = value(range, f);
      hi = stepText === undefined ? lo : f.max;
    }
    if (f.max === 6 && hi === 7) hi = 6; // Sunday as 7
    if (lo < f.min || hi > f.max || lo > hi || step < 1)
      throw new Error(`end of range (${hi}) above maximum (${f.max}): ${part}`);
    for (let v = lo; v <= hi; v += step) out.add(v);
  }
  return out;
}

export function parseCron(text: string): { schedule?: Schedule; error?: string } {
  // ValidateCronJobSpec: a time zone goes in spec.timeZone, not the schedule
  if (/^\s*(CRON_)?TZ=/.test(text))
    return { error: "cannot use TZ or CRON_TZ in schedule, use timeZone field instead" };
  const spec = DESCRIPTORS[text.trim()] ?? text.trim();
  const parts = spec.split(/\s+/);
  if (parts.length !== 5)
    return { error: `expected exactly 5 fields, found ${parts.length}: [${parts.join(" ")}]` };
  try {
    return {
      schedule: {
        sets: parts.map((p, i) => parseField(p, FIELDS[i])),
        domStar: parts[2] === "*" || parts[2] === "?",
        dowStar: parts[4] === "*" || parts[4] === "?",
      },
    };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

function dayMatches(s: Schedule, d: Date): boolean {
  const dom = s.sets[2].has(d.getUTCDate());
  const dow = s.sets[4].has(d.getUTCDay());
  return s.domStar || s.dowStar ? dom && dow : dom || dow;
}

/** The first scheduled minute strictly after `after` (ms), within five years; undefined if none. */
export function nextRun(s: Schedule, after: number): number | undefined {
  const d = new Date(Math.floor(after / 60000) * 60000 + 60000);
  const limit = after + 5 * 366 * 86400000;
  while (d.getTime() <= limit) {
    if (!s.sets[3].has(d.getUTCMonth() + 1)) {
      d.setUTCMonth(d.getUTCMonth() + 1, 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!dayMatches(s, d)) {
      d.setUTCDate(d.getUTCDate() + 1);
      d.setUTCHours(0, 0, 0, 0);
    } else if (!s.sets[1].has(d.getUTCHours())) {
      d.setUTCHours(d.getUTCHours() + 1, 0, 0, 0);
    } else if (!s.sets[0].has(d.getUTCMinutes())) {
      d.setUTCMinutes(d.getUTCMinutes() + 1, 0, 0);
    } else return d.getTime();
  }
  return undefined;
}
