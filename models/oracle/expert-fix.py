# The oracle's repair for a fault whose report does not name the type: the expert tier's (category
# and service), and every fault at the service and symptom levels (--report). It runs inside the
# oracle's playbook as the case's identity, so it knows only what any agent can read: the
# namespace's objects through kubectl (the configuration each one was deployed with, kept in
# kubectl's last-applied-configuration annotation; the pods' labels and ports; the callers'
# environment; the NetworkPolicies). Where the report names no service (the symptom level), the
# faulty ones are found first from what the namespace shows (localize.py). Its success on every
# case proves the case solvable by an agent; it never reads anything the harness holds.
#
# Usage: python3 expert-fix.py <namespace> <service|?>   (cluster.py and localize.py beside it)
import json
import re
import sys

from cluster import LAST, NS, applied_of, deployment_view, get, kubectl
from localize import find_services


UPSTREAM = re.compile(r'upstream: "https?://(\d+\.\d+\.\d+\.\d+):(\d+)')


def restart_stale_callers(SVC, ports):
    """Callers that resolved the Service's name once, when they started (nginx's proxy_pass with no
    resolver), still dial its old address, which their error log names ("upstream:
    \"http://IP:PORT/...\""); they read the new one only when they start again."""
    new_ip = ((get("service", SVC) or {}).get("spec") or {}).get("clusterIP")
    pods = (get("pod") or {}).get("items", [])
    pod_ips = {p.get("status", {}).get("podIP") for p in pods}
    done = []
    for d in (get("deployment") or {}).get("items", []):
        name = d["metadata"]["name"]
        sel = (d["spec"].get("selector") or {}).get("matchLabels") or {}
        if name == SVC or not sel:
            continue
        stale = False
        for p in pods:
            labels = p["metadata"].get("labels") or {}
            if p.get("status", {}).get("phase") != "Running" or any(labels.get(k) != v for k, v in sel.items()):
                continue
            for c in p["spec"].get("containers") or []:
                r = kubectl("logs", p["metadata"]["name"], "-c", c["name"], "--tail=100", check=False)
                for ip, port in UPSTREAM.findall(r.stdout or ""):
                    if int(port) in ports and ip != new_ip and ip not in pod_ips:
                        stale = True
        if stale:
            kubectl("rollout", "restart", f"deployment/{name}")
            kubectl("rollout", "status", f"deployment/{name}", "--timeout=600s")
            done.append(f"deployment/{name} restarted (it still dialed {SVC}'s old address)")
    return done


def repair(SVC):
    """Diagnose one service from what the namespace shows, repair what is found; returns what was done."""
    actions = []

    # 1. The Deployment: what it was deployed with, against what it is now (image, command, env,
    #    probes, init containers, resources, node selector, sidecars, replicas, strategy).
    dep = get("deployment", SVC)
    if dep:
        applied = applied_of(dep)
        if applied and deployment_view(applied) != deployment_view(dep):
            want = dict(applied)
            want.setdefault("metadata", {})
            # keep the deployed configuration's record on the object
            want["metadata"].setdefault("annotations", {})[LAST] = dep["metadata"]["annotations"][LAST]
            kubectl("replace", "-f", "-", stdin=json.dumps(want))
            actions.append(f"deployment/{SVC} put back to the configuration it was deployed with")

    # 2. The Service named after it: missing, or changed since it was deployed.
    svc = get("service", SVC)
    if dep and svc is None:
        labels = dep["spec"]["template"]["metadata"].get("labels") or {"app": SVC}
        containers = dep["spec"]["template"]["spec"]["containers"]
        cports = [p for c in containers for p in c.get("ports") or []]
        # the port callers dial, from their environment (FOO_ADDR=svc:port, http://svc:port/...)
        dialed = set()
        for d in (get("deployment") or {}).get("items", []):
            for c in d["spec"]["template"]["spec"].get("containers") or []:
                for e in c.get("env") or []:
                    for m in re.finditer(rf"(?:^|[/@,\s]){re.escape(SVC)}(?:\.{re.escape(NS)})?(?:\.svc[\w.]*)?:(\d+)", str(e.get("value") or "")):
                        dialed.add(int(m.group(1)))
        ports = []
        for i, cp in enumerate(cports):
            port = sorted(dialed)[i] if i < len(dialed) else cp["containerPort"]
            ports.append({"name": cp.get("name") or f"p{port}", "port": port, "targetPort": cp["containerPort"], "protocol": "TCP"})
        svc_obj = {
            "apiVersion": "v1",
            "kind": "Service",
            "metadata": {"name": SVC, "labels": {"app": labels.get("app", SVC)}},
            "spec": {"selector": {"app": labels.get("app", SVC)}, "ports": ports},
        }
        kubectl("create", "-f", "-", stdin=json.dumps(svc_obj))
        actions.append(f"service/{SVC} created for ports {[p['port'] for p in ports]}")
        actions += restart_stale_callers(SVC, {p["port"] for p in ports})
    elif svc is not None:
        applied = applied_of(svc)
        if applied:
            want_sel = applied.get("spec", {}).get("selector")
            want_ports = applied.get("spec", {}).get("ports")
            have = svc.get("spec", {})
            same_ports = [(p.get("port"), str(p.get("targetPort", p.get("port")))) for p in have.get("ports") or []] == [
                (p.get("port"), str(p.get("targetPort", p.get("port")))) for p in want_ports or []
            ]
            if have.get("selector") != want_sel or not same_ports:
                ops = [
                    {"op": "replace", "path": "/spec/selector", "value": want_sel},
                    {"op": "replace", "path": "/spec/ports", "value": want_ports},
                ]
                kubectl("patch", "service", SVC, "--type", "json", "-p", json.dumps(ops))
                actions.append(f"service/{SVC} put back to the selector and ports it was deployed with")

    # 3. NetworkPolicies that select its pods and admit nothing.
    if dep:
        labels = dep["spec"]["template"]["metadata"].get("labels") or {}
        for p in (get("networkpolicy") or {}).get("items", []):
            sel = (p["spec"].get("podSelector") or {}).get("matchLabels") or {}
            selects = all(labels.get(k) == v for k, v in sel.items())
            types = p["spec"].get("policyTypes") or ["Ingress"]
            if selects and "Ingress" in types and not p["spec"].get("ingress"):
                kubectl("delete", "networkpolicy", p["metadata"]["name"])
                actions.append(f"networkpolicy/{p['metadata']['name']} deleted (it admitted nothing to {SVC})")

    # 4. Nothing in the objects: the fault is in the pod itself (a chaos experiment selected it):
    #    a new pod is not selected.
    if dep and not actions:
        kubectl("rollout", "restart", f"deployment/{SVC}")
        actions.append(f"deployment/{SVC} restarted (its objects are as deployed: the running pod is at fault)")

    # wait for the rollout it made; a Deployment it left as it was may be waiting on what another
    # repair (the incident tier's detectors, run after it) is still to fix
    if dep and any(a.startswith(f"deployment/{SVC} ") for a in actions):
        kubectl("rollout", "status", f"deployment/{SVC}", "--timeout=600s")
    return "; ".join(actions) or "nothing to repair"


services = find_services() if sys.argv[2] == "?" else [sys.argv[2]]
if not services:
    sys.exit("nothing in the namespace shows a fault")
print(f"faulty: {', '.join(services)}")
for s in services:
    print(f"{s}: {repair(s)}")
