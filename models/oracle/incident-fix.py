# The oracle's repair of an incident (docs/incident-tier.md): the report names where users'
# requests fail, never the causes, and the causes were deployed (kubectl apply), so nothing differs
# from what each object records as applied. It runs, as the case's identity, a set of detectors
# over what any agent can read of the namespace (Services, their ports and selectors, the pods'
# labels and ports, the callers' environment), each finding one kind of cause and fixing it, in
# rounds until none finds anything; then it prints the causes it fixed ("cause: Kind/name").
# A later scenario adds a detector: a function (state) -> [Finding], appended to DETECTORS.
#
# Usage: python3 incident-fix.py <namespace>   (cluster.py beside it)
# Exit status: 0 when it fixed something, 1 when nothing in the namespace shows a cause.
import json
import re
import sys

from cluster import NS, get, kubectl

ROUNDS = 4


class Finding:
    """A cause found: the object ("Kind/name"), what is wrong, and the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def state():
    """What the detectors read: the namespace's Deployments, Services and pods, read once per round."""
    return {"deployments": items("deployments"), "services": items("services"), "pods": items("pods")}


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def container_ports(pods):
    """The ports the pods' containers declare: number -> name."""
    out = {}
    for p in pods:
        for c in p["spec"].get("containers") or []:
            for cp in c.get("ports") or []:
                out[cp["containerPort"]] = cp.get("name")
    return out


def running(st, labels_selector):
    return [p for p in st["pods"] if selects(labels_selector, p["metadata"].get("labels") or {}) and p.get("status", {}).get("phase") == "Running"]


ADDR = re.compile(r"^(?:[a-z]+://)?([a-z0-9-]+)(?:\.[a-z0-9.-]+)?:(\d+)(/.*)?$")


def dialed(st):
    """Every address a container's environment names: (deployment, container, variable, host, port, value)."""
    for d in st["deployments"]:
        for c in d["spec"]["template"]["spec"].get("containers") or []:
            for e in c.get("env") or []:
                m = ADDR.match(str(e.get("value") or ""))
                if m:
                    yield d["metadata"]["name"], c["name"], e["name"], m.group(1), int(m.group(2)), e["value"]


def missing_service(st):
    """A Service the callers dial is gone while the pods it served run: made again on their ports."""
    names = {s["metadata"]["name"] for s in st["services"]}
    out, seen = [], set()
    for _, _, _, host, _, _ in dialed(st):
        if host in names or host in seen:
            continue
        pods = running(st, {"app": host})
        ports = container_ports(pods)
        if not pods or not ports:
            continue
        seen.add(host)
        svc = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": host, "labels": {"app": host}},
            "spec": {
                "selector": {"app": host},
                "ports": [{"name": name or f"tcp-{port}", "port": port, "targetPort": port, "protocol": "TCP"} for port, name in sorted(ports.items())],
            },
        }
        out.append(Finding(f"Service/{host}", f"callers dial {host}, which has no Service; its pods listen on {sorted(ports)}", ["create", "-f", "-"], json.dumps(svc)))
    return out


def foreign_selector(st):
    """A Service named after an app selects other pods, which do not serve its ports: sent back to its app."""
    out = []
    for s in st["services"]:
        name = s["metadata"]["name"]
        sel = s["spec"].get("selector") or {}
        own = running(st, {"app": name})
        if not sel or not own or sel.get("app") == name:
            continue
        chosen = running(st, sel)
        served = container_ports(chosen)
        wanted = [p.get("targetPort", p.get("port")) for p in s["spec"].get("ports") or []]
        if any(isinstance(t, int) and t not in served for t in wanted) and all(t in container_ports(own) for t in wanted if isinstance(t, int)):
            patch = json.dumps({"spec": {"selector": {**sel, "app": name}}})
            out.append(Finding(f"Service/{name}", f"it selects {sel}, whose pods do not serve {wanted}; the pods of app={name} do", ["patch", "service", name, "--type", "merge", "-p", patch]))
    return out


def dead_target_port(st):
    """A Service port sent to a container port nothing declares: sent to the one the pods listen on."""
    out = []
    for s in st["services"]:
        sel = s["spec"].get("selector") or {}
        ports = container_ports(running(st, sel))
        if not sel or len(ports) != 1:
            continue
        (listening,) = ports
        ops = []
        for i, p in enumerate(s["spec"].get("ports") or []):
            tp = p.get("targetPort", p.get("port"))
            if isinstance(tp, int) and tp not in ports:
                ops.append({"op": "replace", "path": f"/spec/ports/{i}/targetPort", "value": listening})
        if ops:
            name = s["metadata"]["name"]
            out.append(Finding(f"Service/{name}", f"its targetPort is not a port its pods listen on ({listening})", ["patch", "service", name, "--type", "json", "-p", json.dumps(ops)]))
    return out


def wrong_port(st):
    """A caller's address names a port its callee's Service does not serve: set to the one it serves."""
    services = {s["metadata"]["name"]: s for s in st["services"]}
    out = []
    for dep, container, var, host, port, value in dialed(st):
        svc = services.get(host)
        if not svc:
            continue
        served = [p["port"] for p in svc["spec"].get("ports") or []]
        if port in served or len(served) != 1:
            continue
        fixed = value.replace(f":{port}", f":{served[0]}", 1)
        out.append(Finding(f"Deployment/{dep}", f"{var}={value} names port {port}; {host} serves {served[0]}", ["set", "env", f"deployment/{dep}", "-c", container, f"{var}={fixed}"]))
    return out


# In order: a missing Service first, so that the callers' ports are read against the one made again;
# a Service's selector before its targetPort, which is read against the pods it selects.
DETECTORS = __import__("sticks").DETECTORS + [missing_service, foreign_selector, dead_target_port, wrong_port]
import load; load.Finding = Finding; DETECTORS += load.DETECTORS  # noqa: E401,E702,E402 the load family's
DETECTORS += __import__("template").DETECTORS
import leak; leak.Finding = Finding; DETECTORS += leak.DETECTORS  # noqa: E401,E702,E402 a heap past its limit
import capacity; capacity.Finding = Finding; DETECTORS[DETECTORS.index(load.cpu_starved):DETECTORS.index(load.cpu_starved)] = capacity.DETECTORS  # noqa: E401,E702,E402 an HPA at its maximum before a pod at its limit: the pods are small by design
DETECTORS[DETECTORS.index(wrong_port):DETECTORS.index(wrong_port)] = __import__("herring").DETECTORS  # the herring family's: a renumbered port before the callers' ports are read against it
DETECTORS[DETECTORS.index(missing_service):DETECTORS.index(missing_service)] = __import__("multi").DETECTORS  # multi-three-revert's: a Service gone under a host variable, a sync job putting a wrong port back
DETECTORS += __import__("started").DETECTORS  # the template family's: what a process read at its start
DETECTORS += __import__("stale").DETECTORS  # the template family's: a replica started before its ConfigMap's last write
import twin; twin.Finding = Finding; DETECTORS += twin.DETECTORS  # noqa: E401,E702,E402 the far family's: a valid address of the wrong service
DETECTORS[0:0] = __import__("deep4").DETECTORS  # multi-four-masked's: a callee's NetworkPolicy admitting none of a caller's pods
import window; window.Finding = Finding; DETECTORS += window.DETECTORS  # noqa: E401,E702,E402 the load family's: a CronJob whose runs are the error bursts


def main():
    fixed = []
    for _ in range(ROUNDS):
        found = []
        for detect in DETECTORS:
            found = detect(state())
            if found:
                break
        if not found:
            break
        for f in found:
            print(f"{f.obj}: {f.why}")
            kubectl(*f.fix, stdin=f.stdin)
            fixed.append(f.obj)
        for d in {f.obj.split("/", 1)[1] for f in found if f.obj.startswith("Deployment/")}:
            kubectl("rollout", "status", f"deployment/{d}", "--timeout=600s")
    for obj in dict.fromkeys(fixed):
        print(f"cause: {obj}")
    return 0 if fixed else 1


sys.exit(main())
