# The oracle's detector of a valid but wrong address (docs/incident-tier.md, far-wrong-twin): a
# caller deployed with an address of another real service on the same port and protocol, so its
# calls connect and are answered, wrongly (gRPC Unimplemented, another database's refusal), and
# nothing in the namespace is red. Read from what any agent reads: the Deployment's ReplicaSets
# (each keeps an earlier revision's template, what `kubectl rollout history --revision=N` prints),
# the Services' names and ports, and the Secrets and ConfigMaps a container reads through envFrom.
#   twin_address  a container's literal address (`host:port`, or a `<X>_HOST` beside its port)
#                 naming a Service other than the one an earlier revision named, both serving the
#                 port dialed, where the earlier one is what the variable is named after
#                 (PAYMENT_SERVICE_ADDR -> paymentservice) or what the container's own envFrom
#                 source gives it (a ts-<svc>-mysql Secret's <SVC>_MYSQL_HOST) and the current
#                 one is neither: the earlier value back (the entry removed where the source
#                 gives it)
# A newer revision that changed something else (an image's patch release) is looked past: the
# revision compared is the newest earlier one whose value differs. Finds nothing in a healthy
# namespace (one revision per Deployment) nor where only a port changed (wrong_port's).
import base64
import json
import re

from cluster import get, kubectl

REVISION = "deployment.kubernetes.io/revision"
ADDR = re.compile(r"^(?:[a-z]+://)?([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(/.*)?$")
NAME = re.compile(r"^[a-z0-9]([a-z0-9-]*[a-z0-9])?$")


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def revisions(dep, rss):
    """The Deployment's ReplicaSets, newest revision first."""
    mine = [rs for rs in rss if any(o.get("kind") == "Deployment" and o.get("name") == dep for o in rs["metadata"].get("ownerReferences") or [])]
    return sorted(mine, key=lambda rs: -int((rs["metadata"].get("annotations") or {}).get(REVISION, 0)))


def container(template, name):
    return next((c for c in template["spec"].get("containers") or [] if c["name"] == name), None)


def literal(c):
    return {e["name"]: str(e["value"]) for e in (c or {}).get("env") or [] if "value" in e}


def from_sources(c, maps, secrets):
    """What a container's envFrom gives it: {variable: value}."""
    out = {}
    for src in (c or {}).get("envFrom") or []:
        if src.get("configMapRef"):
            out.update(maps.get(src["configMapRef"].get("name"), {}))
        if src.get("secretRef"):
            out.update(secrets.get(src["secretRef"].get("name"), {}))
    return out


def address(var, env):
    """(host, port) a variable's value names: `host:port`, or a `<X>_HOST` with its `<X>_PORT`."""
    value = env.get(var, "")
    m = ADDR.match(value)
    if m:
        return m.group(1), int(m.group(2))
    if var.endswith("_HOST") and NAME.match(value):
        port = env.get(var[: -len("_HOST")] + "_PORT", "")
        return value, int(port) if port.isdigit() else None
    return None


def serves(svc, port):
    ports = [p["port"] for p in (svc or {}).get("spec", {}).get("ports") or []]
    return bool(ports) and (port is None or port in ports)


def named_after(var, host):
    """PAYMENT_SERVICE_ADDR names paymentservice: the variable's stem, without separators, in the host."""
    stem = re.sub(r"_(ADDR|ADDRESS|HOST|URL|URI|ENDPOINT)$", "", var).replace("_", "").lower()
    return len(stem) >= 4 and stem in host.replace("-", "").lower()


def twin_address(st):
    services = {s["metadata"]["name"]: s for s in st["services"]}
    rss = None
    maps = secrets = None
    out = []
    for d in st["deployments"]:
        name = d["metadata"]["name"]
        if rss is None:
            rss = json.loads(kubectl("get", "replicasets", "-o", "json").stdout)["items"]
        revs = revisions(name, rss)
        if len(revs) < 2:
            continue
        if maps is None:
            maps = {m["metadata"]["name"]: m.get("data") or {} for m in items("configmaps")}
            secrets = {x["metadata"]["name"]: {k: base64.b64decode(v).decode(errors="replace") for k, v in (x.get("data") or {}).items()} for x in items("secrets")}
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            base = from_sources(c, maps, secrets)
            own = literal(c)
            env = {**base, **own}
            for var in own:
                now = address(var, env)
                if not now or now[0] not in services:
                    continue
                host, port = now
                # the newest earlier revision whose value of the variable differs
                before, old_own = None, None
                for rs in revs[1:]:
                    rc = container(rs["spec"]["template"], c["name"])
                    if rc is None:
                        continue
                    old_env = {**from_sources(rc, maps, secrets), **literal(rc)}
                    if old_env.get(var) is not None and old_env.get(var) != env[var]:
                        before, old_own = address(var, old_env), literal(rc)
                        break
                if not before or before[0] == host or before[0] not in services:
                    continue
                if not (serves(services[host], port) and serves(services[before[0]], port)):
                    continue
                backed = lambda h: named_after(var, h) or base.get(var) == h  # noqa: E731
                if not backed(before[0]) or backed(host):
                    continue
                fix = f"{var}-" if var not in old_own and base.get(var) == before[0] else f"{var}={old_own.get(var, before[0])}"
                why = f"{var}={env[var]} names {host}, another service on port {port}; revision before had {before[0]}" + (" (its envFrom source's value)" if base.get(var) == before[0] else f" (the service {var} is named after)")
                out.append(Finding(f"Deployment/{name}", why, ["set", "env", f"deployment/{name}", "-c", c["name"], fix]))
    return out


DETECTORS = [twin_address]
