# The oracle's detector of a cause only the timeline shows (docs/incident-tier.md,
# load-batch-window): a CronJob whose runs coincide with the namespace's error bursts. Nothing in
# the namespace looks wrong between runs; what any agent reads shows it: each Job's start and end
# (`kubectl get jobs`: status.startTime, its Complete or Failed condition's time, or now while it
# runs) against the timestamps of the error lines the services write (`kubectl logs --timestamps`).
#   periodic_burst   an unsuspended CronJob at least two of whose runs each saw errors in some
#                    service's log, that service's error share during its runs at least five times
#                    its share between them (which stays under 5%): its runs are the trouble, not
#                    anything that stays. The CronJob suspended, and its running Job deleted (its
#                    pods go with it), so no further run comes.
# It reads no name and no setting of the job: the correlation alone. It finds nothing in a namespace
# without CronJobs (every system as deployed), nor where errors go on between runs (a CronJob whose
# change outlives the run, as a scaler's or a config sync's: the others' detectors).
import json
import re
from datetime import datetime, timezone

from cluster import get, kubectl

ERROR = re.compile(r'"severity":\s*"error"|"level":\s*"error"|level=error|\bERROR\b|/ERROR/|Exception|DeadlineExceeded|timed out|Connection refused', re.I)
# a line's time as --timestamps prefixes it (RFC 3339, nanoseconds)
STAMP = re.compile(r"^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)")
# the end of a run, and a request's deadline after it: errors that far past the end are the run's
SLACK = 30
MIN_RUNS = 2
RATIO = 5
QUIET = 0.05


def items(kind):
    return (get(kind) or {}).get("items", [])


def when(text):
    m = STAMP.match(text or "")
    return datetime.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S").replace(tzinfo=timezone.utc).timestamp() if m else None


def runs(cronjob, jobs, now):
    """The runs of a CronJob's Jobs: (start, end) in epoch seconds, an active one ending now."""
    uid = cronjob["metadata"]["uid"]
    out = []
    for j in jobs:
        if not any(o.get("uid") == uid for o in j["metadata"].get("ownerReferences") or []):
            continue
        st = j.get("status") or {}
        start = when(st.get("startTime"))
        if start is None:
            continue
        end = when(st.get("completionTime"))
        for c in st.get("conditions") or []:
            if end is None and c.get("type") in ("Complete", "Failed") and c.get("status") == "True":
                end = when(c.get("lastTransitionTime"))
        out.append((start, end if end is not None else now, st.get("active", 0) > 0, j["metadata"]["name"]))
    return sorted(out)


def log_lines(dep):
    """(time, is_error) of each line a Deployment's first container wrote over the last three hours."""
    container = dep["spec"]["template"]["spec"]["containers"][0]["name"]
    r = kubectl("logs", f"deployment/{dep['metadata']['name']}", "-c", container, "--timestamps", "--since=3h", check=False)
    out = []
    for line in r.stdout.splitlines():
        t = when(line)
        if t is not None:
            out.append((t, bool(ERROR.search(line[31:]))))
    return out


def burst(windows, lines):
    """Runs with errors, and the error share during the runs and between them (None: too few lines)."""
    inside, outside, hit = [0, 0], [0, 0], set()
    first = lines[0][0] if lines else 0
    # only the time the Jobs kept cover: from one period before the first kept run (older runs'
    # Jobs are gone by the history limits, their errors would read as between runs)
    gap = min((b[0] - a[0] for a, b in zip(windows, windows[1:])), default=0)
    lines = [(t, err) for t, err in lines if t >= windows[0][0] - gap + (windows[0][1] - windows[0][0]) + SLACK]
    for t, err in lines:
        k = next((i for i, (s, e, *_) in enumerate(windows) if s <= t <= e + SLACK), None)
        side = outside if k is None else inside
        side[0] += err
        side[1] += 1
        if err and k is not None:
            hit.add(k)
    seen = [w for w in windows if w[1] >= first]
    if not inside[1] or not outside[1] or len(seen) < MIN_RUNS:
        return 0, None, None
    return len(hit), inside[0] / inside[1], outside[0] / outside[1]


def periodic_burst(st):
    cronjobs = [c for c in items("cronjobs") if not (c.get("spec") or {}).get("suspend")]
    if not cronjobs:
        return []
    jobs = items("jobs")
    logs = {d["metadata"]["name"]: log_lines(d) for d in st["deployments"]}
    # the cluster's now (a run under way ends there): the newest line any service wrote
    stamps = [when((j.get("status") or {}).get("startTime")) for j in jobs]
    now = max([ls[-1][0] for ls in logs.values() if ls] + [s for s in stamps if s] + [0])
    out = []
    for cj in cronjobs:
        windows = runs(cj, jobs, now)
        if len(windows) < MIN_RUNS:
            continue
        for dep, lines in logs.items():
            n, during, between = burst(windows, lines)
            if n < MIN_RUNS or during is None or between > QUIET or during < RATIO * max(between, 0.01):
                continue
            name = cj["metadata"]["name"]
            why = (
                f"{n} of its runs ({', '.join(w[3] for w in windows[-3:])}...) each saw {dep}'s errors: "
                f"{during:.0%} of its lines during a run, {between:.0%} between runs"
            )
            out.append(Finding(f"CronJob/{name}", why, ["patch", "cronjob", name, "--type", "merge", "-p", json.dumps({"spec": {"suspend": True}})]))
            active = [w[3] for w in windows if w[2]]
            if active:
                out.append(Finding(f"Job/{active[-1]}", "the run under way", ["delete", "job", *active]))
            break
    return out


DETECTORS = [periodic_burst]
