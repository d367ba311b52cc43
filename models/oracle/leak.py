# The oracle's detector of a heap leak that a restart seems to fix (docs/incident-tier.md,
# load-heap-oom): a JVM whose heap maximum is at or above its container's memory limit grows past
# the limit under load, and the kernel kills it (OOMKilled, exit 137, no JVM line) every few
# minutes. Read from what any agent reads: the container's command, args and environment, its
# memory limit, its pods' last state, and the Deployment's ReplicaSets (earlier revisions).
#   heap_past_limit  the heap maximum as the JVM takes it (the last -Xmx or -XX:MaxHeapSize of
#                    JAVA_TOOL_OPTIONS, then the command line, then a start script's JAVA_OPTS and
#                    <APP>_OPTS) at or above the memory limit: the command line or variable that
#                    sets it as the newest earlier revision with a heap under the limit had it
# Finds nothing in a healthy namespace (no manifest of the three systems sets a heap maximum).
import json
import re

from cluster import kubectl

REVISION = "deployment.kubernetes.io/revision"
HEAP = re.compile(r"^(?:-Xmx|-XX:MaxHeapSize=)(\d+)([kKmMgGtT]?)$")
REF = re.compile(r"\$\(([A-Za-z_][A-Za-z0-9_.-]*)\)")
MI = {"": 1 / (1 << 20), "k": 1 / 1024, "m": 1, "g": 1024, "t": 1 << 20}


def mebi(q):
    """A Kubernetes quantity in Mi."""
    m = re.match(r"^(\d+(?:\.\d+)?)([KMGTE]i?|[kmM])?$", str(q or "").strip())
    if not m:
        return None
    scale = {"Ki": 1 / 1024, "Mi": 1, "Gi": 1024, "Ti": 1 << 20, "k": 1000 / (1 << 20), "K": 1000 / (1 << 20), "M": 1e6 / (1 << 20), "G": 1e9 / (1 << 20), "m": 1e-3 / (1 << 20)}
    return float(m.group(1)) * scale.get(m.group(2) or "", 1 / (1 << 20))


def env_of(c):
    return {e["name"]: str(e.get("value") or "") for e in c.get("env") or [] if "value" in e}


def heap_sources(c):
    """(source, words) in the order the JVM reads them: JAVA_TOOL_OPTIONS, the command line, the start script's variables."""
    env = env_of(c)
    line = [REF.sub(lambda m: env.get(m.group(1), m.group(0)), str(a)) for a in (c.get("command") or []) + (c.get("args") or [])]
    out = [("JAVA_TOOL_OPTIONS", env.get("JAVA_TOOL_OPTIONS", "").split()), ("command line", " ".join(line).split())]
    out += [(n, v.split()) for n, v in env.items() if n == "JAVA_OPTS" or (n.endswith("_OPTS") and n != "JAVA_TOOL_OPTIONS")]
    return out


def heap_max(c):
    """(Mi, source, flag) of the -Xmx that counts (the last one read), or None."""
    found = None
    for src, words in heap_sources(c):
        for w in words:
            m = HEAP.match(w)
            if m:
                found = (int(m.group(1)) * MI[m.group(2).lower()], src, w)
    return found


def revisions(dep):
    rs = json.loads(kubectl("get", "replicasets", "-o", "json").stdout)["items"]
    mine = [r for r in rs if any(o.get("kind") == "Deployment" and o.get("name") == dep for o in r["metadata"].get("ownerReferences") or [])]
    return sorted(mine, key=lambda r: -int((r["metadata"].get("annotations") or {}).get(REVISION, 0)))


def oom_kills(st, dep, cname):
    n = 0
    for p in st["pods"]:
        if (p["metadata"].get("labels") or {}).get("app") != dep:
            continue
        for cs in p.get("status", {}).get("containerStatuses") or []:
            last = (cs.get("lastState") or {}).get("terminated") or (cs.get("state") or {}).get("terminated") or {}
            if cs["name"] == cname and last.get("reason") == "OOMKilled":
                n += cs.get("restartCount", 0) or 1
    return n


def fix_of(dep, c, heap, limit):
    """The kubectl call that puts the source back as the newest earlier revision with a heap under the limit had it."""
    src = heap[1]
    for r in revisions(dep)[1:]:
        old = next((x for x in r["spec"]["template"]["spec"].get("containers") or [] if x["name"] == c["name"]), None)
        if old is None:
            continue
        h = heap_max(old)
        if h and h[0] >= limit:
            continue
        if src == "command line":
            patch = {"spec": {"template": {"spec": {"containers": [{"name": c["name"], "command": old.get("command"), "args": old.get("args")}]}}}}
            return ["patch", "deployment", dep, "-p", json.dumps(patch)], f"revision {r['metadata']['annotations'].get(REVISION)}'s command line"
        value = env_of(old).get(src)
        return ["set", "env", f"deployment/{dep}", "-c", c["name"], f"{src}={value}" if value is not None else f"{src}-"], f"revision {r['metadata']['annotations'].get(REVISION)}'s {src}"
    # no earlier revision under the limit: the flag lowered to three quarters of the limit
    flag = "-Xmx" if heap[2].startswith("-Xmx") else "-XX:MaxHeapSize="
    lowered = f"{flag}{int(limit * 3 / 4)}m"
    if src == "command line":
        field = "args" if heap[2] in (c.get("args") or []) else "command"
        patch = {"spec": {"template": {"spec": {"containers": [{"name": c["name"], field: [lowered if w == heap[2] else w for w in c.get(field) or []]}]}}}}
        return ["patch", "deployment", dep, "-p", json.dumps(patch)], f"{lowered}"
    return ["set", "env", f"deployment/{dep}", "-c", c["name"], f"{src}={env_of(c)[src].replace(heap[2], lowered)}"], lowered


def heap_past_limit(st):
    out = []
    for d in st["deployments"]:
        dep = d["metadata"]["name"]
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            limit = mebi(((c.get("resources") or {}).get("limits") or {}).get("memory"))
            heap = heap_max(c)
            if not limit or not heap or heap[0] < limit:
                continue
            fix, how = fix_of(dep, c, heap, limit)
            kills = oom_kills(st, dep, c["name"])
            why = f"{heap[2]} ({heap[1]}) is above the {c['resources']['limits']['memory']} memory limit ({kills} OOM kills seen); back to {how}"
            out.append(Finding(f"Deployment/{dep}", why, fix))  # noqa: F821 (set by incident-fix.py)
    return out


DETECTORS = [heap_past_limit]
