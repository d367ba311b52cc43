# The runbook baseline (models/runbook): the blind steps an on-call engineer's script takes when
# an alert fires, with no model and no reading of the report beyond its namespace. It reads no
# service name, so it runs at every report level; every tier's table says how much of the tier
# such a script repairs (docs/baselines.md). Run as the case's identity, like any playbook.
#
# The steps, in order:
#   1. undo the newest rollout of the namespace, and every rollout that is not Ready;
#   2. scale Deployments at 0 replicas to 1;
#   3. delete every NetworkPolicy;
#   4. point every Service without endpoints at the pods labelled app=<its name>;
#   5. wait for the rollouts, then restart what is still not Ready, and wait again.
import json
import subprocess
import sys
import time

NS = sys.argv[1]
REVISION = "deployment.kubernetes.io/revision"
WAIT_S = 90


def kubectl(*args, stdin=None):
    r = subprocess.run(["kubectl", "-n", NS, *args], input=stdin, capture_output=True, text=True)
    if r.returncode != 0:
        print(f"runbook: kubectl {' '.join(args)}: {r.stderr.strip()}")
    return r


def items(kind):
    r = kubectl("get", kind, "-o", "json")
    return json.loads(r.stdout).get("items", []) if r.returncode == 0 else []


def name(o):
    return o["metadata"]["name"]


def revision(d):
    return int((d["metadata"].get("annotations") or {}).get(REVISION, "1") or 1)


def not_ready(o):
    want = o.get("spec", {}).get("replicas", 1)
    st = o.get("status", {})
    return want > 0 and (st.get("readyReplicas", 0) < want or st.get("updatedReplicas", 0) < want)


def newest_rollout(deployments):
    """The Deployment whose current ReplicaSet was made last, among those with an earlier one."""
    current = {}
    for rs in items("replicasets"):
        owner = next((o["name"] for o in rs["metadata"].get("ownerReferences") or [] if o.get("kind") == "Deployment"), None)
        rev = (rs["metadata"].get("annotations") or {}).get(REVISION)
        if owner and rev is not None:
            current.setdefault(owner, []).append((int(rev), rs["metadata"].get("creationTimestamp", "")))
    candidates = []
    for d in deployments:
        revs = sorted(current.get(name(d), []))
        if revision(d) > 1 and revs:
            candidates.append((revs[-1][1], name(d)))
    return max(candidates)[1] if candidates else None


def wait(kind, names):
    deadline = time.monotonic() + WAIT_S
    for n in names:
        left = max(1, int(deadline - time.monotonic()))
        kubectl("rollout", "status", f"{kind}/{n}", f"--timeout={left}s")


deployments = items("deployments")
undo = []
newest = newest_rollout(deployments)
if newest:
    undo.append(newest)
undo += [name(d) for d in deployments if not_ready(d) and revision(d) > 1 and name(d) not in undo]
for n in undo:
    print(f"runbook: undo the rollout of deployment/{n}")
    kubectl("rollout", "undo", f"deployment/{n}")

for d in deployments:
    if d.get("spec", {}).get("replicas", 1) == 0:
        print(f"runbook: scale deployment/{name(d)} from 0 to 1")
        kubectl("scale", f"deployment/{name(d)}", "--replicas=1")

for p in items("networkpolicies"):
    print(f"runbook: delete networkpolicy/{name(p)}")
    kubectl("delete", "networkpolicy", name(p))

endpoints = {name(e): e for e in items("endpoints")}
for s in items("services"):
    e = endpoints.get(name(s))
    addresses = [a for ss in (e or {}).get("subsets") or [] for a in ss.get("addresses") or []]
    if s.get("spec", {}).get("selector") and not addresses:
        print(f"runbook: point service/{name(s)} at app={name(s)}")
        patch = json.dumps({"spec": {"selector": {"app": name(s)}}})
        kubectl("patch", "service", name(s), "--type=merge", "-p", patch)

wait("deployment", [name(d) for d in items("deployments")])
restart = [("deployment", name(d)) for d in items("deployments") if not_ready(d)]
restart += [("statefulset", name(s)) for s in items("statefulsets") if not_ready(s)]
for kind, n in restart:
    print(f"runbook: restart {kind}/{n}, not Ready")
    kubectl("rollout", "restart", f"{kind}/{n}")
for kind in ("deployment", "statefulset"):
    wait(kind, [n for k, n in restart if k == kind])
