# The incident oracle's detectors for the herring family's causes (docs/incident-tier.md), found
# under newer red herrings by reading what the callers dial, never the namespace's history:
#   renumbered_port     a Service whose port was renumbered while its callers still dial the old
#                       one, which is its targetPort: the callers' environment, or, for a caller
#                       whose address is in its own configuration (nginx), its logs naming the
#                       Service's address and the port it dialed
#   stale_config_value  an address a container reads from a ConfigMap at start (valueFrom, envFrom)
#                       naming a port its Service does not serve: the key set to the port served,
#                       and the Deployment restarted, since the variable is read only at start
#   wrong_port_var      a `<X>_PORT` entry of a container's env beside a `<X>_HOST` (its own, or of
#                       the Secret or ConfigMap it reads through envFrom: Train-Ticket's stores)
#                       naming a Service that does not serve that port: the override removed when
#                       the source's value is served, else set to the port served
# Each reads only what the case's identity reads and returns Findings; incident-fix.py runs them
# before its own wrong_port, which would point the callers at the renumbered port instead.
import base64
import json
import re

from cluster import get, kubectl

ADDR = re.compile(r"^(?:[a-z]+://)?([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(/.*)?$")
UPSTREAM = re.compile(r"(\d+\.\d+\.\d+\.\d+):(\d+)")


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def containers(d):
    return d["spec"]["template"]["spec"].get("containers") or []


def env_addresses(st):
    """(host, port) every container's environment names as a plain value."""
    for d in st["deployments"]:
        for c in containers(d):
            for e in c.get("env") or []:
                m = ADDR.match(str(e.get("value") or ""))
                if m:
                    yield m.group(1), int(m.group(2))


def logged_addresses(st, ips):
    """(Service IP, port) the running pods' recent logs name, for the given Service IPs."""
    seen = set()
    for p in st["pods"]:
        if p.get("status", {}).get("phase") != "Running":
            continue
        for c in p["spec"].get("containers") or []:
            r = kubectl("logs", p["metadata"]["name"], "-c", c["name"], "--tail=200", check=False)
            for ip, port in UPSTREAM.findall(r.stdout or ""):
                if ip in ips:
                    seen.add((ip, int(port)))
    return seen


def renumbered_port(st):
    """A Service's port renumbered while callers dial its targetPort: the port set back to it."""
    candidates = []
    dialed = set(env_addresses(st))
    for s in st["services"]:
        ports = s["spec"].get("ports") or []
        name = s["metadata"]["name"]
        # a NodePort or LoadBalancer's port is what outside clients dial: never one to read logs for
        if s["spec"].get("type", "ClusterIP") != "ClusterIP" or s["spec"].get("clusterIP") in (None, "None"):
            continue
        if any((name, p["port"]) in dialed for p in ports):
            continue
        moved = [p for p in ports if isinstance(p.get("targetPort"), int) and p["targetPort"] != p["port"]]
        if moved:
            candidates.append((s, moved))
    if not candidates:
        return []
    wanted = {(h, p) for h, p in dialed}
    ips = {s["spec"]["clusterIP"]: s["metadata"]["name"] for s, _ in candidates}
    if not any(h in {s["metadata"]["name"] for s, _ in candidates} for h, _ in dialed):
        wanted |= {(ips[ip], port) for ip, port in logged_addresses(st, set(ips))}
    out = []
    for s, moved in candidates:
        name = s["metadata"]["name"]
        ops = []
        for i, p in enumerate(s["spec"]["ports"]):
            if p in moved and (name, p["targetPort"]) in wanted:
                ops.append({"op": "replace", "path": f"/spec/ports/{i}/port", "value": p["targetPort"]})
        if ops:
            out.append(Finding(f"Service/{name}", f"its callers dial {[o['value'] for o in ops]}, the port its pods listen on; it serves {[p['port'] for p in moved]}", ["patch", "service", name, "--type", "json", "-p", json.dumps(ops)]))
    return out


def stale_config_value(st):
    """An address read from a ConfigMap at start names a port its Service does not serve."""
    services = {s["metadata"]["name"]: s for s in st["services"]}
    maps = {m["metadata"]["name"]: m.get("data") or {} for m in items("configmaps")}
    out = []
    for d in st["deployments"]:
        refs = []
        for c in containers(d):
            for e in c.get("env") or []:
                ref = (e.get("valueFrom") or {}).get("configMapKeyRef")
                if ref:
                    refs.append((ref.get("name"), ref.get("key")))
            for src in c.get("envFrom") or []:
                ref = src.get("configMapRef")
                if ref:
                    refs += [(ref.get("name"), k) for k in maps.get(ref.get("name"), {})]
        for cm, key in refs:
            value = str(maps.get(cm, {}).get(key) or "")
            m = ADDR.match(value)
            svc = services.get(m.group(1)) if m else None
            if not svc:
                continue
            served = [p["port"] for p in svc["spec"].get("ports") or []]
            if int(m.group(2)) in served or len(served) != 1:
                continue
            fixed = value.replace(f":{m.group(2)}", f":{served[0]}", 1)
            dep = d["metadata"]["name"]
            out.append(Finding(f"ConfigMap/{cm}", f"{key}={value} names port {m.group(2)}; {m.group(1)} serves {served[0]}", ["patch", "configmap", cm, "--type", "merge", "-p", json.dumps({"data": {key: fixed}})]))
            out.append(Finding(f"Deployment/{dep}", f"it read {key} at start: restarted to read it again", ["rollout", "restart", f"deployment/{dep}"]))
    return out


def sources(c, maps, secrets):
    """What a container's envFrom gives it: {variable: value}."""
    out = {}
    for src in c.get("envFrom") or []:
        if src.get("configMapRef"):
            out.update(maps.get(src["configMapRef"].get("name"), {}))
        if src.get("secretRef"):
            out.update(secrets.get(src["secretRef"].get("name"), {}))
    return out


def wrong_port_var(st):
    """A `<X>_PORT` override beside a `<X>_HOST` naming a Service that does not serve it."""
    services = {s["metadata"]["name"]: s for s in st["services"]}
    maps = {m["metadata"]["name"]: m.get("data") or {} for m in items("configmaps")}
    secrets = {x["metadata"]["name"]: {k: base64.b64decode(v).decode(errors="replace") for k, v in (x.get("data") or {}).items()} for x in items("secrets")}
    out = []
    for d in st["deployments"]:
        for c in containers(d):
            base = sources(c, maps, secrets)
            own = {e["name"]: e.get("value") for e in c.get("env") or [] if "value" in e}
            env = {**base, **own}
            for name, value in own.items():
                if not name.endswith("_PORT") or name == "_PORT" or not str(value or "").isdigit():
                    continue
                svc = services.get(env.get(name[: -len("_PORT")] + "_HOST") or "")
                served = [p["port"] for p in (svc or {}).get("spec", {}).get("ports") or []]
                if not svc or int(value) in served or len(served) != 1:
                    continue
                dep = d["metadata"]["name"]
                fix = f"{name}-" if str(base.get(name)) == str(served[0]) else f"{name}={served[0]}"
                out.append(Finding(f"Deployment/{dep}", f"{name}={value}; {svc['metadata']['name']} serves {served[0]}", ["set", "env", f"deployment/{dep}", "-c", c["name"], fix]))
    return out


DETECTORS = [renumbered_port, stale_config_value, wrong_port_var]
