# The oracle's detectors of the "load and time" family (docs/incident-tier.md): causes that show
# only under load or over time, read from what any agent reads of the namespace (the metrics API
# through `kubectl top`, the Deployments, their ReplicaSets: each keeps the pod template of an
# earlier revision, which is what `kubectl rollout history --revision=N` prints).
#   cpu_starved   a container at its CPU limit whose Deployment ran with a larger one in an
#                 earlier revision: the resources of that revision back (capacity back)
#   retry_storm   a gateway's Retry filter on every route, with its timeout cut: the variables
#                 an earlier revision did not have removed, so failed calls are not multiplied
# Each returns Findings (incident-fix.py) and finds nothing in a healthy namespace.
import json
import re

from cluster import kubectl

REVISION = "deployment.kubernetes.io/revision"
# at or above this share of its limit a container is starved (kubectl top shows the CFS quota's cap)
HOT = 0.9


def milli(q):
    q = str(q or "")
    if not q:
        return None
    return int(q[:-1]) if q.endswith("m") else int(float(q) * 1000)


def top():
    """`kubectl top pod --containers`: {(pod, container): millicores}."""
    r = kubectl("top", "pod", "--containers", "--no-headers", check=False)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 3:
            out[(f[0], f[1])] = milli(f[2])
    return out


def revisions(st, dep):
    """The Deployment's ReplicaSets, newest revision first."""
    mine = [rs for rs in st.setdefault("replicasets", json.loads(kubectl("get", "replicasets", "-o", "json").stdout)["items"]) if any(o.get("kind") == "Deployment" and o.get("name") == dep for o in rs["metadata"].get("ownerReferences") or [])]
    return sorted(mine, key=lambda rs: -int((rs["metadata"].get("annotations") or {}).get(REVISION, 0)))


def container(template, name):
    return next((c for c in template["spec"].get("containers") or [] if c["name"] == name), None)


def owner(st, pod_name):
    pod = next((p for p in st["pods"] if p["metadata"]["name"] == pod_name), None)
    app = pod and (pod["metadata"].get("labels") or {}).get("app")
    return next((d for d in st["deployments"] if d["metadata"]["name"] == app), None)


def cpu_starved(st):
    out, seen, usage = [], set(), top()
    for p in st["pods"]:
        d = owner(st, p["metadata"]["name"])
        if not d or p.get("status", {}).get("phase") != "Running":
            continue
        name = d["metadata"]["name"]
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            cname = c["name"]
            limit = milli(((c.get("resources") or {}).get("limits") or {}).get("cpu"))
            # no reading yet: a pod just replaced (a restart does not add capacity), judged by its revision alone
            used = usage.get((p["metadata"]["name"], cname))
            if not limit or (used is not None and used < HOT * limit) or (name, cname) in seen:
                continue
            seen.add((name, cname))
            out += starved_fix(st, name, cname, limit, used)
    return out


def starved_fix(st, name, cname, limit, used):
    """The resources of the newest earlier revision whose CPU limit was at least twice this one."""
    out = []
    for rs in revisions(st, name)[1:]:
        old = container(rs["spec"]["template"], cname)
        res = (old or {}).get("resources") or {}
        if (milli(res.get("limits", {}).get("cpu")) or 0) >= 2 * limit:
            patch = {"spec": {"template": {"spec": {"containers": [{"name": cname, "resources": res}]}}}}
            out.append(Finding(f"Deployment/{name}", f"{cname} uses {'?' if used is None else used}m of its {limit}m CPU limit; revision {rs['metadata']['annotations'].get(REVISION)} ran with {res['limits']['cpu']}", ["patch", "deployment", name, "-p", json.dumps(patch)]))
            break
    return out


RETRY = re.compile(r"^Retry=(\d+)")


def retry_storm(st):
    """Variables of a gateway's container that turn on retries of every route, absent from an earlier revision."""
    out = []
    for d in st["deployments"]:
        name = d["metadata"]["name"]
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            env = {e["name"]: e.get("value") for e in c.get("env") or []}
            retries = [k for k, v in env.items() if RETRY.match(str(v or "")) and int(RETRY.match(v).group(1)) > 1]
            if not retries:
                continue
            earlier = [container(rs["spec"]["template"], c["name"]) for rs in revisions(st, name)[1:]]
            before = next(({e["name"]: e.get("value") for e in o.get("env") or []} for o in earlier if o and not any(RETRY.match(str(e.get("value") or "")) for e in o.get("env") or [])), None)
            if before is None:
                continue
            changed = [k for k in env if k not in before and (k in retries or "TIMEOUT" in k)]
            out.append(Finding(f"Deployment/{name}", f"{', '.join(f'{k}={env[k]}' for k in changed)}: every failed call is sent again, on a cut timeout", ["set", "env", f"deployment/{name}", "-c", c["name"], *[f"{k}-" for k in changed]]))
    return out


Finding = None  # set by incident-fix.py (its class), so the findings are one type
DETECTORS = [retry_storm, cpu_starved]
