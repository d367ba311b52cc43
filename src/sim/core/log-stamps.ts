// The times applications write into their own lines, each in its logger's format, and moving them
// (a lived-in pod's past output, logbook.ts). Besides ISO-8601 (Go's zap/logrus JSON, Python's
// json loggers, Node's pino `time` in Unix ms):
//   spring  Spring Boot 2's default console pattern, `%d{yyyy-MM-dd HH:mm:ss.SSS}` (LogbackLoggingSystem
//           defaults.xml / DefaultLogbackConfiguration CONSOLE_LOG_PATTERN), UTC in the image;
//   python  Python logging's asctime, `%Y-%m-%d %H:%M:%S,mmm` (logging.Formatter.default_time_format
//           and default_msec_format), as Locust's `[%(asctime)s] %(hostname)s/%(levelname)s/%(name)s`;
//   redis   redis' serverLogRaw, `%d %b %Y %H:%M:%S.` plus milliseconds (src/server.c);
//   golog   Go's log package with its default flags (LstdFlags), `2006/01/02 15:04:05`;
//   tornado tornado.log.LogFormatter's default datefmt, `%y%m%d %H:%M:%S`, after the level letter;
//   nginx   nginx's access log, `$time_local`: `28/Nov/2026:12:00:00 +0000` (its error log is golog's);
//   clf     werkzeug's request log (Flask's dev server), `[%d/%b/%Y %H:%M:%S]` (serving.py log_date_time_string).

const p = (n: number, w = 2) => String(n).padStart(w, "0");
const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

const date = (d: Date) => `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}`;
const clock = (d: Date) => `${p(d.getUTCHours())}:${p(d.getUTCMinutes())}:${p(d.getUTCSeconds())}`;

export const springStamp = (ms: number) => {
  const d = new Date(ms);
  return `${date(d)} ${clock(d)}.${p(d.getUTCMilliseconds(), 3)}`;
};

export const pythonStamp = (ms: number) => {
  const d = new Date(ms);
  return `${date(d)} ${clock(d)},${p(d.getUTCMilliseconds(), 3)}`;
};

export const redisStamp = (ms: number) => {
  const d = new Date(ms);
  return `${p(d.getUTCDate())} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()} ${clock(d)}.${p(d.getUTCMilliseconds(), 3)}`;
};

export const goLogStamp = (ms: number) => {
  const d = new Date(ms);
  return `${date(d).replaceAll("-", "/")} ${clock(d)}`;
};

export const tornadoStamp = (ms: number) => {
  const d = new Date(ms);
  return `${p(d.getUTCFullYear() % 100)}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())} ${clock(d)}`;
};

export const clfStamp = (ms: number) => {
  const d = new Date(ms);
  return `${p(d.getUTCDate())}/${MONTHS[d.getUTCMonth()]}/${d.getUTCFullYear()} ${clock(d)}`;
};

export const nginxStamp = (ms: number) => `${clfStamp(ms).replace(" ", ":")} +0000`;

/** The loggers' stamps by placeholder name ({springTime} ...), from the line's instant. */
export const STAMPS: Record<string, (ms: number) => string> = {
  springTime: springStamp,
  pythonTime: pythonStamp,
  redisTime: redisStamp,
  goLogTime: goLogStamp,
  tornadoTime: tornadoStamp,
  clfTime: clfStamp,
  nginxTime: nginxStamp,
};

const GOLOG = /\b(\d{4})\/(\d{2})\/(\d{2}) (\d{2}):(\d{2}):(\d{2})\b/g;
const TORNADO = /\[([DIWEC]) (\d{2})(\d{2})(\d{2}) (\d{2}):(\d{2}):(\d{2}) /g;
const CLF = new RegExp(`\\[(\\d{2})\\/(${MONTHS.join("|")})\\/(\\d{4}) (\\d{2}):(\\d{2}):(\\d{2})\\]`, "g");
const NGINX = new RegExp(
  `\\[(\\d{2})\\/(${MONTHS.join("|")})\\/(\\d{4}):(\\d{2}):(\\d{2}):(\\d{2}) \\+0000\\]`,
  "g",
);
const SPACED = /\b(\d{4})-(\d{2})-(\d{2}) (\d{2}):(\d{2}):(\d{2})([.,])(\d{3})\b/g;
const REDIS = new RegExp(
  `\\b(\\d{2}) (${MONTHS.join("|")}) (\\d{4}) (\\d{2}):(\\d{2}):(\\d{2})\\.(\\d{3})\\b`,
  "g",
);

/** The loggers' stamps of a line (every format above but ISO), each `ms` earlier, in its own format. */
export function shiftLoggerStamps(text: string, ms: number): string {
  return text
    .replace(SPACED, (_all, y, mo, d, h, mi, s, sep: string, f) => {
      const t = Date.UTC(+y, +mo - 1, +d, +h, +mi, +s, +f) - ms;
      return sep === "," ? pythonStamp(t) : springStamp(t);
    })
    .replace(REDIS, (_all, d, mon: string, y, h, mi, s, f) =>
      redisStamp(Date.UTC(+y, MONTHS.indexOf(mon), +d, +h, +mi, +s, +f) - ms),
    )
    .replace(GOLOG, (_all, y, mo, d, h, mi, s) => goLogStamp(Date.UTC(+y, +mo - 1, +d, +h, +mi, +s) - ms))
    .replace(
      TORNADO,
      (_all, l, y, mo, d, h, mi, s) =>
        `[${l} ${tornadoStamp(Date.UTC(2000 + +y, +mo - 1, +d, +h, +mi, +s) - ms)} `,
    )
    .replace(
      NGINX,
      (_all, d, mon: string, y, h, mi, s) =>
        `[${nginxStamp(Date.UTC(+y, MONTHS.indexOf(mon), +d, +h, +mi, +s) - ms)}]`,
    )
    .replace(
      CLF,
      (_all, d, mon: string, y, h, mi, s) =>
        `[${clfStamp(Date.UTC(+y, MONTHS.indexOf(mon), +d, +h, +mi, +s) - ms)}]`,
    );
}
