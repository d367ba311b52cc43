# The incident oracle's detectors for multi-three-revert (docs/incident-tier.md, family "multi"):
# causes that compose (a Service gone, a wrong port behind it, a job that puts the port back),
# each found from what the namespace says of itself, never from an object's name:
#   missing_host_service  a `<X>_HOST` a container reads (its env, or the Secret or ConfigMap of
#                         its envFrom: Train-Ticket's datasources) naming no Service, while a
#                         workload whose name the host extends (tsdb-mysql for tsdb-mysql-leader)
#                         runs pods declaring the port the callers dial: the Service made again on
#                         that workload's selector and ports. incident-fix.py's missing_service
#                         finds the other case, a host:port value named after its app.
#   syncing_cronjob       a CronJob, not suspended, whose job runs `kubectl set env` on a
#                         Deployment with the `VAR=value` entries of a ConfigMap its pod mounts (or
#                         written in its command) of which one names a port its callee's Service
#                         does not serve: suspended, so that the caller's fix is not put back at
#                         its next run. Until the callee's Service exists, nothing can be judged.
# Each returns Findings (incident-fix.py's class) and finds nothing in a namespace without them.
import base64
import json
import re

from cluster import get

ADDR = re.compile(r"^(?:[a-z]+://)?([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(/.*)?$")
ENV = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)=(\S*)$")
SET_ENV = re.compile(r"\bkubectl\s+set\s+env\s+(?:deployment|deployments|deploy)(?:\.apps)?/([a-z0-9-]+)")


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def containers(spec):
    return spec.get("containers") or []


def config_sources():
    maps = {m["metadata"]["name"]: m.get("data") or {} for m in items("configmaps")}
    secrets = {
        x["metadata"]["name"]: {k: base64.b64decode(v).decode(errors="replace") for k, v in (x.get("data") or {}).items()}
        for x in items("secrets")
    }
    return maps, secrets


def env_of(c, maps, secrets):
    """A container's environment as its process sees it: envFrom's sources, then its own entries."""
    out = {}
    for src in c.get("envFrom") or []:
        if src.get("configMapRef"):
            out.update(maps.get(src["configMapRef"].get("name"), {}))
        if src.get("secretRef"):
            out.update(secrets.get(src["secretRef"].get("name"), {}))
    for e in c.get("env") or []:
        if "value" in e:
            out[e["name"]] = e.get("value")
    return out


def served(services, host):
    ports = [p["port"] for p in (services.get(host) or {}).get("spec", {}).get("ports") or []]
    return ports[0] if len(ports) == 1 else None


def wrong_ports(env, services):
    """What in an environment names a port its Service does not serve: [(variable, value, host, port served)]."""
    out = []
    for var, value in env.items():
        m = ADDR.match(str(value or ""))
        if m and served(services, m.group(1)) not in (None, int(m.group(2))):
            out.append((var, value, m.group(1), served(services, m.group(1))))
        if var.endswith("_PORT") and str(value or "").isdigit():
            host = env.get(var[: -len("_PORT")] + "_HOST")
            port = served(services, host)
            if port is not None and port != int(value):
                out.append((var, value, host, port))
    return out


def missing_host_service(st):
    """A `<X>_HOST` callers read names no Service; the workload it was named after runs: made again."""
    services = {s["metadata"]["name"] for s in st["services"]}
    maps, secrets = config_sources()
    dialed = {}
    for d in st["deployments"]:
        for c in containers(d["spec"]["template"]["spec"]):
            env = env_of(c, maps, secrets)
            for var, host in env.items():
                port = str(env.get(var[: -len("_HOST")] + "_PORT") or "") if var.endswith("_HOST") else ""
                if host and port.isdigit() and re.match(r"^[a-z0-9-]+$", str(host)) and host not in services:
                    dialed.setdefault(host, []).append(int(port))
    workloads = items("deployments") + items("statefulsets")
    out = []
    for host, ports in dialed.items():
        port = max(set(ports), key=ports.count)  # what most callers dial: one may override it wrongly
        owners = [w for w in workloads if host.startswith(w["metadata"]["name"] + "-")]
        owners.sort(key=lambda w: -len(w["metadata"]["name"]))
        for w in owners[:1]:
            tpl = w["spec"]["template"]
            declared = [p for c in containers(tpl["spec"]) for p in c.get("ports") or []]
            if not any(p["containerPort"] == port for p in declared) or not (w.get("status") or {}).get("readyReplicas"):
                continue
            labels = (w["spec"].get("selector") or {}).get("matchLabels") or {}
            svc = {
                "apiVersion": "v1",
                "kind": "Service",
                "metadata": {"name": host, "labels": tpl["metadata"].get("labels") or {}},
                "spec": {
                    "selector": labels,
                    "ports": [
                        {"name": p.get("name") or f"tcp-{p['containerPort']}", "port": p["containerPort"], "targetPort": p["containerPort"], "protocol": "TCP"}
                        for p in declared
                    ],
                },
            }
            why = f"callers' datasources name {host}:{port}, which has no Service; {w['kind']} {w['metadata']['name']}'s pods listen on {port}"
            out.append(Finding(f"Service/{host}", why, ["create", "-f", "-"], json.dumps(svc)))
    return out


def synced_values(pod, script, maps):
    """The `VAR=value` entries a job's kubectl set env applies: its mounted ConfigMaps' and its script's."""
    values = {}
    for v in pod.get("volumes") or []:
        for text in maps.get((v.get("configMap") or {}).get("name"), {}).values():
            values.update(dict(m.groups() for m in map(ENV.match, str(text).split()) if m))
    values.update(dict(m.groups() for m in map(ENV.match, script.split()) if m))
    return values


def syncing_cronjob(st):
    """A CronJob whose `kubectl set env` gives a Deployment a port its callee does not serve: suspended."""
    services = {s["metadata"]["name"]: s for s in st["services"]}
    deps = {d["metadata"]["name"]: d for d in st["deployments"]}
    maps, secrets = config_sources()
    out = []
    for cj in items("cronjobs"):
        if cj["spec"].get("suspend"):
            continue
        pod = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        for c in containers(pod):
            script = " ".join([*(c.get("command") or []), *(c.get("args") or [])])
            for target in SET_ENV.findall(script):
                if target not in deps:
                    continue
                values = synced_values(pod, script, maps)
                for tc in containers(deps[target]["spec"]["template"]["spec"]):
                    env = {**env_of(tc, maps, secrets), **values}
                    bad = [w for w in wrong_ports(env, services) if w[0] in values]
                    if bad:
                        name = cj["metadata"]["name"]
                        why = "; ".join(f"{v}={val}, a port {h} does not serve ({p})" for v, val, h, p in bad)
                        fix = ["patch", "cronjob", name, "--type", "merge", "-p", json.dumps({"spec": {"suspend": True}})]
                        out.append(Finding(f"CronJob/{name}", f"schedule {cj['spec'].get('schedule')} sets deployment/{target}'s {why}", fix))
                        break
    return list({f.obj: f for f in out}.values())


DETECTORS = [missing_host_service, syncing_cronjob]
