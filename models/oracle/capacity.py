# The oracle's detector of a capped capacity (docs/incident-tier.md, load-hpa-capacity): a
# HorizontalPodAutoscaler at its maxReplicas whose metric is past its target, so the load needs
# more pods than it may make, and the namespace's ResourceQuotas that would refuse them. It reads
# what any agent reads: the HPA's spec and status (what `kubectl get hpa` and `describe hpa` show),
# `kubectl top` (a reading at the container's CPU limit is capped: the load is at least that), the
# quotas' status (used against hard) and the ReplicaSets' FailedCreate events.
#   hpa_capped   the HPA's maximum raised to what the load needs, by the HPA's own formula
#                (desired = ceil(current * utilization / target)), at least doubled while the
#                reading is capped at the limit (the HPA's own scale-up step, 100% a period); each
#                quota the new pods and one rolling-update surge pod would exceed raised to admit them
# It waits for the HPA to act on a maximum it raised before it judges again, so that the next round
# reads the load spread over the new pods. It finds nothing in a namespace without an HPA at its
# maximum (every system as deployed has none).
import json
import math
import time

from cluster import get, kubectl

# the HPA's --horizontal-pod-autoscaler-tolerance: within 10% of the target it does not scale
TOLERANCE = 0.1
# a container at or above this share of its CPU limit reads capped (kubectl top shows the CFS quota)
CAPPED = 0.9
# wall seconds to wait for an HPA to act on a raised maximum (the method acts at speed 1: a 15 s
# sync, the pods' start, a metrics window)
SETTLE = 150
# the HPA's sync period (--horizontal-pod-autoscaler-sync-period), with a margin
SYNC = 20

UNITS = {"": 1, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 1024, "Mi": 1024**2, "Gi": 1024**3, "m": 1e-3}

raised = {}  # HPA name -> when this oracle raised its maximum, waited on before judging again


def qty(v):
    s = str(v).strip()
    num = s.rstrip("".join(sorted({c for u in UNITS for c in u})))
    unit = s[len(num):]
    return float(num) * UNITS[unit] if num and unit in UNITS else None


def fmt(key, n):
    if "memory" in key:
        return f"{math.ceil(n / 1024**2)}Mi"
    if "cpu" in key:
        return f"{math.ceil(n * 1000)}m"
    return str(int(math.ceil(n)))


def items(kind):
    return (get(kind) or {}).get("items", [])


def utilization_target(hpa):
    """The (container or pod) CPU utilization target: (container or None, percent), else None."""
    for m in hpa["spec"].get("metrics") or []:
        src = m.get("containerResource") if m.get("type") == "ContainerResource" else m.get("resource")
        t = (src or {}).get("target") or {}
        if src and src.get("name") == "cpu" and t.get("averageUtilization"):
            return src.get("container"), t["averageUtilization"]
    return None


def current_utilization(hpa, container):
    for m in (hpa.get("status") or {}).get("currentMetrics") or []:
        src = m.get("containerResource") if m.get("type") == "ContainerResource" else m.get("resource")
        if src and src.get("name") == "cpu" and (src.get("container") == container or container is None):
            return (src.get("current") or {}).get("averageUtilization")
    return None


def top(selector):
    """`kubectl top pod --containers` of the target's pods: {(pod, container): millicores}."""
    r = kubectl("top", "pod", "--containers", "--no-headers", "-l", selector, check=False)
    out = {}
    for line in r.stdout.splitlines():
        f = line.split()
        if len(f) >= 3 and f[2].endswith("m"):
            out[(f[0], f[1])] = int(f[2][:-1])
    return out


def selector_of(dep):
    return ",".join(f"{k}={v}" for k, v in sorted((dep["spec"]["selector"].get("matchLabels") or {}).items()))


def capped(dep, container):
    """Whether every pod's container reads at its CPU limit (the reading then says only 'at least')."""
    for c in dep["spec"]["template"]["spec"].get("containers") or []:
        if container not in (None, c["name"]):
            continue
        limit = qty(((c.get("resources") or {}).get("limits") or {}).get("cpu") or 0)
        if not limit:
            return False
        usage = [m for (pod, name), m in top(selector_of(dep)).items() if name == c["name"]]
        return bool(usage) and all(m >= CAPPED * limit * 1000 for m in usage)
    return False


def settle():
    """Waits (wall time, bounded) until each HPA whose maximum was raised has acted: the replicas it
    asks for, its status and the Ready pods the same for longer than a sync, and no pod at its limit
    below the maximum (the HPA scales again once it reads the new pods), so that the next reading is
    of the load spread over the pods the HPA settled on."""
    for name, since in list(raised.items()):
        deadline, stable, last = since + SETTLE, None, None
        while time.time() < deadline:
            hpa = get("horizontalpodautoscalers", name)
            dep = hpa and get("deployments", hpa["spec"]["scaleTargetRef"]["name"])
            if not hpa or not dep:
                break
            want = dep["spec"].get("replicas", 1)
            now = (want, (dep.get("status") or {}).get("availableReplicas") or 0, (hpa.get("status") or {}).get("currentReplicas"))
            # pods at their limit below the maximum: the HPA has not read the new pods yet, it will scale
            busy = want < hpa["spec"]["maxReplicas"] and capped(dep, (utilization_target(hpa) or (None,))[0])
            if time.time() - since >= SYNC and now[0] == now[1] == now[2] and not busy:
                if now != last:
                    stable, last = time.time(), now
                elif time.time() - stable >= SYNC:
                    break
            else:
                stable, last = None, None
            time.sleep(3)
        raised.pop(name, None)


def refusals(dep_name):
    """The FailedCreate messages of the target's ReplicaSets naming a quota, newest last."""
    r = kubectl("get", "events", "--field-selector", "reason=FailedCreate", "-o", "json", check=False)
    if r.returncode != 0:
        return []
    evs = json.loads(r.stdout).get("items", [])
    return [e.get("message", "") for e in evs if (e.get("involvedObject") or {}).get("name", "").startswith(f"{dep_name}-") and "exceeded quota" in e.get("message", "")]


def quota_fixes(dep, extra_pods):
    """Each quota that the target's extra pods (and one surge pod) would exceed, raised to admit them."""
    out = []
    per_pod = {"pods": 1, "count/pods": 1}
    for c in dep["spec"]["template"]["spec"].get("containers") or []:
        for section in ("requests", "limits"):
            for res, v in ((c.get("resources") or {}).get(section) or {}).items():
                key = f"{section}.{res}"
                per_pod[key] = per_pod.get(key, 0) + (qty(v) or 0)
                if section == "requests":
                    per_pod[res] = per_pod.get(res, 0) + (qty(v) or 0)
    for q in items("resourcequotas"):
        hard, used = q["spec"].get("hard") or {}, (q.get("status") or {}).get("used") or {}
        new = {}
        for key, h in hard.items():
            if key not in per_pod or qty(h) is None:
                continue
            need = (qty(used.get(key, 0)) or 0) + per_pod[key] * (extra_pods + 1)
            if need > qty(h):
                new[key] = fmt(key, need)
        if new:
            name = q["metadata"]["name"]
            why = f"{json.dumps(new)} needed for {extra_pods} more pods of {dep['metadata']['name']} and a surge pod (used {json.dumps({k: used.get(k) for k in new})}, hard {json.dumps({k: hard[k] for k in new})})"
            out.append(Finding(f"ResourceQuota/{name}", why, ["patch", "resourcequota", name, "--type", "merge", "-p", json.dumps({"spec": {"hard": new}})]))
    return out


def hpa_capped(st):
    settle()
    out = []
    for hpa in items("horizontalpodautoscalers"):
        name, spec = hpa["metadata"]["name"], hpa["spec"]
        tgt = utilization_target(hpa)
        ref = spec.get("scaleTargetRef") or {}
        dep = next((d for d in st["deployments"] if ref.get("kind") == "Deployment" and d["metadata"]["name"] == ref.get("name")), None)
        current = (hpa.get("status") or {}).get("currentReplicas") or 0
        if not tgt or not dep or current < spec["maxReplicas"]:
            continue
        container, target = tgt
        util = current_utilization(hpa, container)
        if util is None or util / target <= 1 + TOLERANCE:
            continue
        want = math.ceil(current * util / target)
        hot = capped(dep, container)
        if hot:
            want = max(want, 2 * current)
        why = f"at its maximum {spec['maxReplicas']} with {container or 'pod'} CPU at {util}% of its request against a {target}% target: the load needs {want} replicas ({'at least: the pods read at their CPU limit' if hot else 'ceil(current x utilization / target)'})"
        refused = refusals(dep["metadata"]["name"])
        if refused:
            why += f"; pods already refused: {refused[-1]}"
        # the quota first, so that the pods the HPA makes at its next sync are admitted
        out += quota_fixes(dep, want - current)
        out.append(Finding(f"HorizontalPodAutoscaler/{name}", why, ["patch", "hpa", name, "--type", "merge", "-p", json.dumps({"spec": {"maxReplicas": want}})]))
        raised[name] = time.time()
    return out


Finding = None  # set by incident-fix.py (its class), so the findings are one type
DETECTORS = [hpa_capped]
