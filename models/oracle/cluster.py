# What the oracle reads of the namespace (models/oracle): kubectl as the case's identity, and the
# views of a Deployment's template that say whether it still is what it was deployed with (the
# last-applied-configuration annotation kubectl apply keeps). Shared by expert-fix.py (the repair)
# and localize.py (finding the faulty service from an alert).
import json
import re
import subprocess
import sys

NS = sys.argv[1]
LAST = "kubectl.kubernetes.io/last-applied-configuration"
RESTARTED = "kubectl.kubernetes.io/restartedAt"


def kubectl(*args, stdin=None, check=True):
    # A write that loses the race with a controller's status update (kubectl replace reads the
    # object's resourceVersion, then writes with it) answers 409 Conflict; it is sent again, as
    # `kubectl replace` re-reads the version each time.
    for _ in range(5):
        r = subprocess.run(["kubectl", "-n", NS, *args], input=stdin, capture_output=True, text=True)
        if r.returncode == 0 or "the object has been modified" not in r.stderr:
            break
    if check and r.returncode != 0:
        sys.exit(f"kubectl {' '.join(args)}: {r.stderr.strip()}")
    return r


def get(kind, name=None):
    r = kubectl("get", kind, *([name] if name else []), "-o", "json", check=False)
    if r.returncode != 0:
        if "NotFound" in r.stderr or "not found" in r.stderr:
            return None
        sys.exit(f"kubectl get {kind} {name or ''}: {r.stderr.strip()}")
    return json.loads(r.stdout)


def applied_of(obj):
    text = (obj.get("metadata", {}).get("annotations") or {}).get(LAST)
    return json.loads(text) if text else None


def handler(probe):
    """A probe's handler and where it looks, without what the API fills in (timings, scheme)."""
    if not probe:
        return None
    if "httpGet" in probe:
        return ("httpGet", probe["httpGet"].get("path"), str(probe["httpGet"].get("port")))
    if "tcpSocket" in probe:
        return ("tcpSocket", str(probe["tcpSocket"].get("port")))
    if "grpc" in probe:
        return ("grpc", str(probe["grpc"].get("port")))
    return ("exec", (probe.get("exec") or {}).get("command"))


def source(value_from):
    """Where a variable's value comes from, without what the API fills in (fieldRef's apiVersion)."""
    if not value_from:
        return None
    for k in ("fieldRef", "resourceFieldRef", "secretKeyRef", "configMapKeyRef"):
        if k in value_from:
            ref = value_from[k]
            return (k, ref.get("fieldPath") or ref.get("resource"), ref.get("name"), ref.get("key"))
    return None


def container_view(c):
    return {
        "name": c.get("name"),
        "image": c.get("image"),
        "command": c.get("command"),
        "args": c.get("args"),
        "env": [(e.get("name"), e.get("value"), source(e.get("valueFrom"))) for e in c.get("env") or []],
        "envFrom": json.dumps(c.get("envFrom") or [], sort_keys=True),
        "ports": sorted((p.get("containerPort"), p.get("name")) for p in c.get("ports") or []),
        "resources": json.dumps(c.get("resources") or {}, sort_keys=True),
        "readiness": handler(c.get("readinessProbe")),
        "liveness": handler(c.get("livenessProbe")),
        "startup": handler(c.get("startupProbe")),
    }


def deployment_view(d):
    spec = d.get("spec", {})
    pod = spec.get("template", {}).get("spec", {})
    return {
        "replicas": spec.get("replicas", 1),
        "strategy": (spec.get("strategy") or {}).get("type", "RollingUpdate"),
        "containers": [container_view(c) for c in pod.get("containers") or []],
        "init": [container_view(c) for c in pod.get("initContainers") or []],
        "nodeSelector": pod.get("nodeSelector") or {},
        "volumes": sorted(v.get("name") for v in pod.get("volumes") or []),
    }


