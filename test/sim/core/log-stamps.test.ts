// The times applications write into their lines, each in its own logger's format, and moved back
// with a lived-in pod's output. Sources: Spring Boot 2's CONSOLE_LOG_PATTERN
// (spring-boot/.../logging/logback/defaults.xml: %d{yyyy-MM-dd HH:mm:ss.SSS}); CPython
// Lib/logging/__init__.py (Formatter.default_time_format '%Y-%m-%d %H:%M:%S', default_msec_format
// '%s,%03d'); redis src/server.c serverLogRaw (strftime "%d %b %Y %H:%M:%S." then ms); Go's
// log package (LstdFlags: 2009/01/23 01:23:23); tornado/log.py LogFormatter (DEFAULT_DATE_FORMAT
// '%y%m%d %H:%M:%S'); werkzeug/serving.py log_date_time_string ('%02d/%3s/%04d %02d:%02d:%02d');
// nginx's $time_local (ngx_http_log_module: 28/Sep/1970:12:00:00 +0600).
import { describe, expect, it } from "vitest";
import { shiftStamps } from "../../../src/sim/context/logbook.js";
import { STAMPS, shiftLoggerStamps } from "../../../src/sim/core/log-stamps.js";
import { render } from "../../../src/sim/workloads/topology/logs.js";

const AT = Date.UTC(2026, 10, 28, 6, 3, 1, 369);

describe("the loggers' stamps", () => {
  it("writes each format as its logger does", () => {
    expect(STAMPS.springTime(AT)).toBe("2026-11-28 06:03:01.369");
    expect(STAMPS.pythonTime(AT)).toBe("2026-11-28 06:03:01,369");
    expect(STAMPS.redisTime(AT)).toBe("28 Nov 2026 06:03:01.369");
    expect(STAMPS.goLogTime(AT)).toBe("2026/11/28 06:03:01");
    expect(STAMPS.tornadoTime(AT)).toBe("261128 06:03:01");
    expect(STAMPS.clfTime(AT)).toBe("28/Nov/2026 06:03:01");
    expect(STAMPS.nginxTime(AT)).toBe("28/Nov/2026:06:03:01 +0000");
  });

  it("fills a template's placeholder from the line's instant", () => {
    const [line] = render(["1:C {redisTime} # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo"], {
      time: new Date(AT).toISOString(),
    });
    expect(line).toBe("1:C 28 Nov 2026 06:03:01.369 # oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
  });

  it("moves every format back by the same span, each in its own precision", () => {
    const day = 86_400_000 + 3_600_000; // a day and an hour: the date, the month's day and the hour move
    const moved = [STAMPS.springTime, STAMPS.pythonTime, STAMPS.redisTime, STAMPS.goLogTime].map((f) =>
      shiftLoggerStamps(`x ${f(AT)} y`, day),
    );
    expect(moved[0]).toBe(`x ${STAMPS.springTime(AT - day)} y`);
    expect(moved[1]).toBe(`x ${STAMPS.pythonTime(AT - day)} y`);
    expect(moved[2]).toBe(`x ${STAMPS.redisTime(AT - day)} y`);
    expect(moved[3]).toBe(`x ${STAMPS.goLogTime(AT - day)} y`);
    expect(shiftLoggerStamps(`[I ${STAMPS.tornadoTime(AT)} web:2271] 200`, day)).toBe(
      `[I ${STAMPS.tornadoTime(AT - day)} web:2271] 200`,
    );
    expect(shiftLoggerStamps(`- - [${STAMPS.clfTime(AT)}] "GET /"`, day)).toBe(
      `- - [${STAMPS.clfTime(AT - day)}] "GET /"`,
    );
    expect(shiftLoggerStamps(`- - [${STAMPS.nginxTime(AT)}] "GET /"`, day)).toBe(
      `- - [${STAMPS.nginxTime(AT - day)}] "GET /"`,
    );
  });

  it("a lived-in line moves its ISO stamps and its loggers' stamps alike", () => {
    const text = `${STAMPS.springTime(AT)}  INFO 1 --- [main] a.B : Started at ${new Date(AT).toISOString()}`;
    expect(shiftStamps(text, 60_000, AT)).toBe(
      `${STAMPS.springTime(AT - 60_000)}  INFO 1 --- [main] a.B : Started at ${new Date(AT - 60_000).toISOString()}`,
    );
  });
});
