# The incident oracle's detectors for causes outside the pod template (docs/incident-tier.md, the
# template family and the store's runtime limit): a LimitRange whose maximum refuses what the
# namespace's Deployments declare, a ResourceQuota below what they need, a redis whose runtime
# maxmemory (CONFIG SET, in no manifest) refuses its clients' writes. Each reads only what the
# case's identity reads (kubectl get, kubectl exec redis-cli) and returns Findings; incident-fix.py
# runs them with its own.
import json
import re

from cluster import get, kubectl

UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "Ti": 1024**4, "m": 1e-3}


def qty(v):
    """A Kubernetes quantity ("2000Mi", "1Gi", "500m", "2") as a number of base units."""
    m = re.fullmatch(r"([0-9.]+)([a-zA-Z]*)", str(v).strip())
    if not m or m.group(2) not in UNITS:
        return None
    return float(m.group(1)) * UNITS[m.group(2)]


def fmt(resource, n):
    """A quantity as kubectl writes it: memory in Mi (rounded up), cpu in millicores, counts whole."""
    if "memory" in resource or "storage" in resource:
        return f"{-(-int(n) // 1024**2)}Mi"
    if "cpu" in resource:
        return f"{-(-int(round(n * 1000)) // 1)}m"
    return str(int(n))


def containers(d):
    return d["spec"]["template"]["spec"].get("containers") or []


def declared(c, resource):
    """What a container declares of a resource (its limit, else its request)."""
    r = c.get("resources") or {}
    return qty((r.get("limits") or {}).get(resource) or (r.get("requests") or {}).get(resource) or 0) or 0


def limit_range_refuses(st):
    """A LimitRange whose Container (or Pod) maximum is below what a Deployment declares: its new pods
    are refused at admission. The maximum raised to the largest the Deployments declare."""
    out = []
    for lr in items("limitranges"):
        name = lr["metadata"]["name"]
        ops = []
        for i, item in enumerate(lr["spec"].get("limits") or []):
            kind = item.get("type")
            for res, mx in (item.get("max") or {}).items():
                cap = qty(mx)
                if cap is None:
                    continue
                if kind == "Container":
                    need = max((declared(c, res) for d in st["deployments"] for c in containers(d)), default=0)
                elif kind == "Pod":
                    need = max((sum(declared(c, res) for c in containers(d)) for d in st["deployments"]), default=0)
                else:
                    continue
                if need > cap:
                    ops.append({"op": "replace", "path": f"/spec/limits/{i}/max/{res.replace('/', '~1')}", "value": fmt(res, need)})
        if ops:
            out.append(Finding(f"LimitRange/{name}", f"its maximum refuses what the Deployments declare: {ops}", ["patch", "limitrange", name, "--type", "json", "-p", json.dumps(ops)]))
    return out


def quota_too_small(st):
    """A ResourceQuota whose hard limit is below what every Deployment's desired pods need, plus one
    pod of surge for a rollout: its replacements are refused. Raised to that."""
    out = []
    deps = st["deployments"]
    for q in items("resourcequotas"):
        name = q["metadata"]["name"]
        hard = q["spec"].get("hard") or {}
        raised = {}
        for key, v in hard.items():
            cap = qty(v)
            if cap is None:
                continue
            if key in ("pods", "count/pods"):
                per_pod = [1 for _ in deps]
            elif key.startswith(("limits.", "requests.")) or key in ("cpu", "memory"):
                res = key.split(".", 1)[1] if "." in key else key
                section = "requests" if not key.startswith("limits.") else "limits"
                per_pod = [sum(qty(((c.get("resources") or {}).get(section) or {}).get(res) or 0) or 0 for c in containers(d)) for d in deps]
            else:
                continue
            need = sum(p * (d["spec"].get("replicas", 1)) for p, d in zip(per_pod, deps)) + max(per_pod, default=0)
            if need > cap:
                raised[key] = fmt(key, need)
        if raised:
            out.append(Finding(f"ResourceQuota/{name}", f"its hard limits are below what the Deployments need: {raised}", ["patch", "resourcequota", name, "--type", "merge", "-p", json.dumps({"spec": {"hard": raised}})]))
    return out


def redis_cli(pod, container, *args):
    r = kubectl("exec", pod, "-c", container, "--", "redis-cli", *args, check=False)
    return r.stdout if r.returncode == 0 else ""


def store_maxmemory(st):
    """A redis whose runtime maxmemory (CONFIG SET, in no manifest) is below what it holds, with
    noeviction: every write is refused. The limit lifted at run time (CONFIG SET maxmemory 0)."""
    out = []
    for p in st["pods"]:
        if p.get("status", {}).get("phase") != "Running" or p["metadata"].get("deletionTimestamp"):
            continue
        for c in p["spec"].get("containers") or []:
            if "redis" not in c.get("image", ""):
                continue
            pod, name = p["metadata"]["name"], c["name"]
            got = redis_cli(pod, name, "CONFIG", "GET", "maxmemory").split()
            if len(got) < 2 or got[1] == "0":
                continue
            info = redis_cli(pod, name, "INFO", "memory")
            used = re.search(r"used_memory:(\d+)", info)
            policy = re.search(r"maxmemory_policy:(\S+)", info)
            if not used or int(used.group(1)) < int(got[1]):
                continue
            app = (p["metadata"].get("labels") or {}).get("app", pod)
            why = f"redis in {pod} holds {used.group(1)} bytes over its runtime maxmemory {got[1]} ({policy.group(1) if policy else '?'}): writes are refused"
            out.append(Finding(f"Deployment/{app}", why, ["exec", pod, "-c", name, "--", "redis-cli", "CONFIG", "SET", "maxmemory", "0"]))
    return out


def refused_settle(st):
    """Finds nothing: once no limit refuses them, waits for the Deployments whose pods admission
    refused (ReplicaFailure) to roll out, their ReplicaSets retrying after the controller's back-off
    (up to 1000 s). Waiting rather than restarting them leaves their templates as they were."""
    if limit_range_refuses(st) or quota_too_small(st):
        return []
    for d in st["deployments"]:
        conds = (d.get("status") or {}).get("conditions") or []
        if any(c.get("type") == "ReplicaFailure" and c.get("status") == "True" for c in conds):
            kubectl("rollout", "status", f"deployment/{d['metadata']['name']}", "--timeout=300s", check=False)
    return []


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


# refused_settle last: it waits once the others have nothing left to fix
DETECTORS = [limit_range_refuses, quota_too_small, store_maxmemory, refused_settle]
