# The oracle's detectors of the "load and time" family (docs/incident-tier.md): causes that show
# only under load or over time, read from what any agent reads of the namespace (the metrics API
# through `kubectl top`, the Deployments, their ReplicaSets: each keeps the pod template of an
# earlier revision, which is what `kubectl rollout history --revision=N` prints).
#   cpu_starved   a container at its CPU limit whose Deployment ran with a larger one in an
#                 earlier revision: the resources of that revision back (capacity back)
#   retry_storm   a gateway's Retry filter on every route, with its timeout cut: the variables
#                 an earlier revision did not have removed, so failed calls are not multiplied
#   heap_past_limit  a JVM's -Xmx above its container's memory limit (the heap outgrows the
#                 cgroup and the kernel kills it): the variable an earlier revision had back
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


def mebi(q):
    m = re.match(r"^(\d+(?:\.\d+)?)([KMGT]i?|[kmgt])?$", str(q or "").strip())
    if not m:
        return None
    scale = {"k": 1 / 1024, "K": 1 / 1024, "Ki": 1 / 1024, "M": 1, "Mi": 1, "m": 1, "G": 1024, "Gi": 1024, "g": 1024, "T": 1 << 20, "Ti": 1 << 20, "t": 1 << 20}
    return float(m.group(1)) * (scale.get(m.group(2) or "", 1 / (1 << 20)))


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
    out, seen = [], set()
    for (pod, cname), used in top().items():
        d = owner(st, pod)
        if not d or used is None:
            continue
        name = d["metadata"]["name"]
        c = container(d["spec"]["template"], cname)
        limit = milli(((c or {}).get("resources") or {}).get("limits", {}).get("cpu"))
        if not limit or used < HOT * limit or (name, cname) in seen:
            continue
        for rs in revisions(st, name)[1:]:
            old = container(rs["spec"]["template"], cname)
            res = (old or {}).get("resources") or {}
            if (milli(res.get("limits", {}).get("cpu")) or 0) > limit:
                seen.add((name, cname))
                patch = {"spec": {"template": {"spec": {"containers": [{"name": cname, "resources": res}]}}}}
                out.append(Finding(f"Deployment/{name}", f"{cname} uses {used}m of its {limit}m CPU limit; revision {rs['metadata']['annotations'].get(REVISION)} ran with {res['limits']['cpu']}", ["patch", "deployment", name, "-p", json.dumps(patch)]))
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


XMX = re.compile(r"-Xmx(\d+[kKmMgGtT]?)")


def heap_past_limit(st):
    out = []
    for d in st["deployments"]:
        name = d["metadata"]["name"]
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            limit = mebi(((c.get("resources") or {}).get("limits") or {}).get("memory"))
            for e in c.get("env") or []:
                m = XMX.search(str(e.get("value") or ""))
                heap = m and mebi(m.group(1))
                if not limit or not heap or heap < limit:
                    continue
                # the variable as the newest earlier revision had it with a heap under the limit (absent: removed)
                arg = f"{e['name']}-"
                for rs in revisions(st, name)[1:]:
                    o = container(rs["spec"]["template"], c["name"]) or {}
                    was = next((x.get("value") for x in o.get("env") or [] if x["name"] == e["name"]), None)
                    w = was and XMX.search(str(was))
                    if not w or mebi(w.group(1)) < limit:
                        arg = f"{e['name']}-" if was is None else f"{e['name']}={was}"
                        break
                out.append(Finding(f"Deployment/{name}", f"{e['name']} sets the heap maximum to {m.group(1)}, above the {c['resources']['limits']['memory']} limit", ["set", "env", f"deployment/{name}", "-c", c["name"], arg]))
    return out


Finding = None  # set by incident-fix.py (its class), so the findings are one type
DETECTORS = [heap_past_limit, retry_storm, cpu_starved]
