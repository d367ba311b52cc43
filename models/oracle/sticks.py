# The oracle's detectors for fixes that do not stick (docs/incident-tier.md, family "sticks"):
# the workload's bad value comes from something in the namespace that re-applies it (a config
# agent's source ConfigMap, a CronJob), so the fix is that source. Each reads what any agent can
# read (kubectl as the case's identity) and finds nothing in a namespace without such a source.
# incident-fix.py runs these before its own detectors, so that a workload under a reconciler is
# never patched directly (the patch would be reverted, and would touch a workload that is no cause).
import json
import re
import time

from cluster import get, kubectl

ADDR = re.compile(r"^(?:[a-z]+://)?([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(/.*)?$")
ENV = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)=(\S*)")


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def mounted_sources(deployments):
    """The ConfigMaps a Deployment's pods mount: a reconciler reads its desired state from them."""
    out = set()
    for d in deployments:
        for v in d["spec"]["template"]["spec"].get("volumes") or []:
            if v.get("configMap"):
                out.add(v["configMap"]["name"])
    return out


def desired_env(st):
    """Each `<deployment>.env` entry of a mounted ConfigMap: (configmap, key, deployment, {var: value})."""
    names = {d["metadata"]["name"] for d in st["deployments"]}
    sources = mounted_sources(st["deployments"])
    for cm in items("configmaps"):
        name = cm["metadata"]["name"]
        if name not in sources:
            continue
        for key, text in (cm.get("data") or {}).items():
            dep = key[: -len(".env")] if key.endswith(".env") else None
            if dep in names:
                yield name, key, dep, dict(ENV.findall(text or ""))


def served_port(services, host):
    svc = services.get(host)
    served = [p["port"] for p in (svc or {}).get("spec", {}).get("ports") or []]
    return served[0] if len(served) == 1 else None


def drifting_source(st):
    """A reconciler's source ConfigMap gives a workload an address whose port its callee does not serve."""
    services = {s["metadata"]["name"]: s for s in st["services"]}
    out = []
    for cm, key, dep, env in desired_env(st):
        fixed, why = dict(env), []
        for var, value in env.items():
            m = ADDR.match(value)
            port = served_port(services, m.group(1)) if m else None
            if port is not None and int(m.group(2)) != port:
                fixed[var] = value.replace(f":{m.group(2)}", f":{port}", 1)
                why.append(f"{var}={value} names port {m.group(2)}; {m.group(1)} serves {port}")
        if why:
            text = " ".join(f"{k}={v}" for k, v in fixed.items())
            patch = json.dumps({"data": {key: text}})
            out.append(Finding(f"ConfigMap/{cm}", f"{key}, which a config agent re-applies to {dep}: {'; '.join(why)}", ["patch", "configmap", cm, "--type", "merge", "-p", patch]))
    return out


def env_of(d):
    return {e["name"]: e.get("value") for c in d["spec"]["template"]["spec"].get("containers") or [] for e in c.get("env") or []}


def pending_drift(st, tries=240):
    """A source fixed, its agent not yet round: wait for it (never patch the workload), then its rollout."""
    for _, _, dep, env in list(desired_env(st)):
        for _ in range(tries):
            d = get("deployment", dep)
            if d and all(env_of(d).get(k) == v for k, v in env.items()):
                break
            time.sleep(0.5)
        kubectl("rollout", "status", f"deployment/{dep}", "--timeout=600s", check=False)
    return []


def scale_target(args):
    """The Deployment a `kubectl scale ... --replicas=0` names, else None."""
    if "scale" not in args or "--replicas=0" not in args:
        return None
    for i, a in enumerate(args):
        m = re.match(r"^(?:deployment|deployments|deploy)(?:\.apps)?/([a-z0-9-]+)$", a)
        if m:
            return m.group(1)
        if a in ("deployment", "deployments", "deploy") and i + 1 < len(args):
            return args[i + 1]
    return None


def often(schedule):
    """Whether a cron schedule runs more than once a day (its minute or hour field is not one value)."""
    fields = (schedule or "").split()
    return len(fields) >= 2 and not (fields[0].isdigit() and fields[1].isdigit())


def scaling_cronjob(st):
    """A CronJob that scales a Deployment to 0 more than once a day: suspended, the Deployment scaled back."""
    deps = {d["metadata"]["name"]: d for d in st["deployments"]}
    out = []
    for cj in items("cronjobs"):
        spec = cj["spec"]
        if spec.get("suspend") or not often(spec.get("schedule")):
            continue
        pod = spec["jobTemplate"]["spec"]["template"]["spec"]
        for c in pod.get("containers") or []:
            words = " ".join([*(c.get("command") or []), *(c.get("args") or [])]).split()
            target = scale_target(words)
            if target not in deps:
                continue
            name = cj["metadata"]["name"]
            out.append(Finding(f"CronJob/{name}", f"schedule {spec['schedule']} scales {target} to 0", ["patch", "cronjob", name, "--type", "merge", "-p", json.dumps({"spec": {"suspend": True}})]))
            if (deps[target]["spec"].get("replicas") or 0) == 0:
                applied = json.loads((deps[target]["metadata"].get("annotations") or {}).get("kubectl.kubernetes.io/last-applied-configuration") or "{}")
                want = (applied.get("spec") or {}).get("replicas") or 1
                out.append(Finding(f"Deployment/{target}", f"scaled to 0 by {name}", ["scale", f"deployment/{target}", f"--replicas={want}"]))
    return out


# A source fixed in an earlier round is waited for first, before anything reads the workloads.
DETECTORS = [pending_drift, scaling_cronjob, drifting_source]
