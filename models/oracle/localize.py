# Finding the faulty services from an alert (the symptom level, --report symptom), as an on-call
# engineer would, with only what the case's identity can read: objects that differ from the
# configuration they were deployed with (last-applied-configuration), Services that are missing
# or select nothing, NetworkPolicies that admit nothing, pods that are not Ready, containers
# using half their CPU or memory limit or more (the metrics API, as `kubectl top`), a netem
# queue on a pod's interface (`tc qdisc show` in the pod), a volume that writes slowly (`dd`),
# and callers whose logs say a callee fails. Never the chaos objects: the fault's mechanism is
# not the agent's to read. Each signal is local to a pod or an object, so a fault in one service
# does not point at its callers.
import json
import re
import time

from cluster import NS, applied_of, deployment_view, get, kubectl


def app_of(obj):
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return labels.get("app")


def drifted(deps):
    """Deployments whose template or replicas differ from what they were deployed with."""
    out = []
    for d in deps:
        applied = applied_of(d)
        if applied and deployment_view(applied) != deployment_view(d):
            out.append(d["metadata"]["name"])
    return out


def services_broken(deps):
    """Services changed since deployed, and Deployments with ports that no Service selects."""
    out = []
    svcs = (get("service") or {}).get("items", [])
    for s in svcs:
        applied = applied_of(s)
        if not applied:
            continue
        have, want = s.get("spec", {}), applied.get("spec", {})
        ports = lambda ps: [(p.get("port"), str(p.get("targetPort", p.get("port")))) for p in ps or []]
        if have.get("selector") != want.get("selector") or ports(have.get("ports")) != ports(want.get("ports")):
            out.append(s["metadata"]["name"])
    for d in deps:
        tpl = d["spec"]["template"]
        labels = tpl["metadata"].get("labels") or {}
        has_ports = any(c.get("ports") for c in tpl["spec"].get("containers") or [])
        selected = any(
            s.get("spec", {}).get("selector")
            and all(labels.get(k) == v for k, v in s["spec"]["selector"].items())
            for s in svcs
        )
        if has_ports and not selected and d["metadata"]["name"] not in out:
            out.append(d["metadata"]["name"])
    return out


def denied(deps):
    """Deployments a NetworkPolicy selects and admits nothing to."""
    out = []
    for p in (get("networkpolicy") or {}).get("items", []):
        sel = (p["spec"].get("podSelector") or {}).get("matchLabels") or {}
        types = p["spec"].get("policyTypes") or ["Ingress"]
        if "Ingress" not in types or p["spec"].get("ingress"):
            continue
        for d in deps:
            labels = d["spec"]["template"]["metadata"].get("labels") or {}
            if all(labels.get(k) == v for k, v in sel.items()):
                out.append(d["metadata"]["name"])
    return out


def live(pods):
    return [p for p in pods if not p["metadata"].get("deletionTimestamp")]


def unready(pods):
    """Apps with a pod that is not Running and Ready (crash loops, failed probes, pending, paused)."""
    out = []
    for p in live(pods):
        conds = {c["type"]: c["status"] for c in p.get("status", {}).get("conditions") or []}
        if p.get("status", {}).get("phase") != "Running" or conds.get("Ready") != "True":
            out.append(app_of(p))
    return out


def quantity(q, cpu):
    if not q:
        return 0.0
    m = re.match(r"^([\d.]+)([a-zA-Z]*)$", str(q))
    if not m:
        return 0.0
    n, unit = float(m.group(1)), m.group(2)
    if cpu:
        return n * {"n": 1e-6, "u": 1e-3, "m": 1, "": 1000}.get(unit, 1)
    return n * {"Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "k": 1e3, "M": 1e6, "G": 1e9, "": 1}.get(unit, 1)


def saturated(pods):
    """Apps with a container using half its CPU or memory limit or more (`kubectl top`, from the metrics API)."""
    r = kubectl("get", "--raw", f"/apis/metrics.k8s.io/v1beta1/namespaces/{NS}/pods", check=False)
    if r.returncode != 0:
        return []
    usage = {m["metadata"]["name"]: m for m in json.loads(r.stdout).get("items", [])}
    out = []
    for p in live(pods):
        m = usage.get(p["metadata"]["name"])
        if not m:
            continue
        for c in p["spec"].get("containers") or []:
            used = next((x["usage"] for x in m.get("containers", []) if x["name"] == c["name"]), {})
            limits = (c.get("resources") or {}).get("limits") or {}
            for res in ("cpu", "memory"):
                limit = quantity(limits.get(res), res == "cpu")
                if limit and quantity(used.get(res), res == "cpu") / limit >= 0.5:
                    out.append(app_of(p))
    return out


def exec_in(pod, argv):
    """argv in the first container of the pod where it runs; its output, or None."""
    for c in pod["spec"].get("containers") or []:
        r = kubectl("exec", pod["metadata"]["name"], "-c", c["name"], "--", *argv, check=False)
        if r.returncode == 0:
            return r.stdout + r.stderr
    return None


def shaped(pods):
    """Apps whose pod's interface has a netem queue (delay, loss): `tc qdisc show` in the pod."""
    out = []
    for p in live(pods):
        got = exec_in(p, ["tc", "qdisc", "show"])
        if got and "netem" in got:
            out.append(app_of(p))
    return out


# One MiB at a time with direct I/O, stopping at a write that took a second or more: a volume
# that delays some of its operations by seconds shows at the first delayed one, not after ten.
WRITES = (
    'for i in 1 2 3 4 5 6 7 8 9 10; do o=$(dd if=/dev/zero of="$1" bs=1M count=1 oflag=direct 2>&1); '
    'echo "$o"; if echo "$o" | grep -q "copied, 0\\."; then :; else break; fi; done; rm -f "$1"'
)


def slow_disk(pods):
    """Apps whose pod writes to a volume at under 10 MB/s (`dd` with direct I/O, the file removed at once)."""
    out = []
    for p in live(pods):
        for c in p["spec"].get("containers") or []:
            for vm in c.get("volumeMounts") or []:
                path = vm.get("mountPath", "")
                if vm.get("readOnly") or path.startswith("/var/run") or path.startswith("/etc"):
                    continue
                f = f"{path}/oracle-probe.{int(time.time() * 1000)}"
                args = ["--", "sh", "-c", WRITES, "sh", f]
                r = kubectl("exec", p["metadata"]["name"], "-c", c["name"], *args, check=False)
                runs = re.findall(r"(\d+) bytes[^\n]*copied,\s*([\d.]+)\s*s", r.stdout + r.stderr)
                written, took = sum(int(b) for b, _ in runs), sum(float(t) for _, t in runs)
                if took > 0 and written / took / 1e6 < 10:
                    out.append(app_of(p))
    return out


def blamed_in_logs(pods, names):
    """Services that callers' recent logs name beside an error (a callee that aborts or cannot be reached)."""
    out = []
    for p in live(pods):
        r = kubectl("logs", p["metadata"]["name"], "--all-containers", "--since=5m", "--tail=200", check=False)
        for line in r.stdout.splitlines():
            if not re.search(r"error|fail|refused|timed? ?out|unreachable|5\d\d", line, re.I):
                continue
            for n in names:
                if n != app_of(p) and re.search(rf"\b{re.escape(n)}\b", line):
                    out.append(n)
    return out


def find_services():
    """The faulty services, strongest signals first; every signal's findings (several faults at once)."""
    deps = (get("deployment") or {}).get("items", [])
    pods = (get("pod") or {}).get("items", [])
    names = [d["metadata"]["name"] for d in deps]
    found = []
    for signal in (drifted, services_broken, denied):
        found += signal(deps)
    for signal in (unready, saturated, shaped, slow_disk):
        found += signal(pods)
    if not found:
        found += blamed_in_logs(pods, names)
    seen = []
    for n in found:
        if n in names and n not in seen:
            seen.append(n)
    return seen
