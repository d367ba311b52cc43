# The incident oracle's detector for a Secret changed under running containers (docs/incident-tier.md,
# template-secret-rotated): a container reads a Secret it takes its environment from (envFrom's
# secretRef, an env entry's secretKeyRef) once, when it starts, so after a rotation the pods that
# did not restart still hold the old value while those that did hold the new one, and the two sides
# of a password disagree. It compares, for each Deployment whose containers take variables from a
# Secret, what its running containers started with (their process environment, read through exec as
# any agent reads it) with the Secret's data now; a Deployment whose containers hold another value
# is restarted, so that its pods read the Secret again. The Secret is never written (the agent's
# identity cannot, and the rotation is the intended state). Pods started after the Secret's last
# write (its managedFields' times) are not read: they hold its current data.
import base64

from cluster import get, kubectl


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


def secrets():
    """Each Secret's data, decoded, and the time of its last write (the newest managedFields entry)."""
    out = {}
    for s in items("secrets"):
        data = {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in (s.get("data") or {}).items()}
        times = [m.get("time") for m in s["metadata"].get("managedFields") or [] if m.get("time")]
        out[s["metadata"]["name"]] = (data, max(times) if times else None)
    return out


def from_secrets(container, known):
    """The variables a container takes from Secrets: name -> (secret, key)."""
    out = {}
    for src in container.get("envFrom") or []:
        ref = src.get("secretRef")
        if ref and ref.get("name") in known:
            for key in known[ref["name"]][0]:
                out[f"{src.get('prefix') or ''}{key}"] = (ref["name"], key)
    for e in container.get("env") or []:
        ref = (e.get("valueFrom") or {}).get("secretKeyRef")
        if ref and ref.get("name") in known:
            out[e["name"]] = (ref["name"], ref.get("key"))
        else:
            out.pop(e["name"], None)  # a later entry of the same name wins
    return out


def started_env(pod, container):
    r = kubectl("exec", pod, "-c", container, "--", "cat", "/proc/1/environ", check=False)
    text, sep = r.stdout, "\0"
    if r.returncode != 0 or not text:
        r = kubectl("exec", pod, "-c", container, "--", "printenv", check=False)
        text, sep = r.stdout, "\n"
    if r.returncode != 0:
        return None
    return dict(line.split("=", 1) for line in text.split(sep) if "=" in line)


def started_at(pod, container):
    for st in pod.get("status", {}).get("containerStatuses") or []:
        if st.get("name") == container:
            return ((st.get("state") or {}).get("running") or {}).get("startedAt")
    return None


def selects(selector, labels):
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def secret_stale(st):
    """A Deployment whose running containers started with another value than their Secret holds now."""
    known = None
    out = []
    for d in st["deployments"]:
        containers = d["spec"]["template"]["spec"].get("containers") or []
        if not any(c.get("envFrom") or any("secretKeyRef" in (e.get("valueFrom") or {}) for e in c.get("env") or []) for c in containers):
            continue
        known = secrets() if known is None else known
        sel = d["spec"].get("selector", {}).get("matchLabels") or {}
        stale = []
        for p in st["pods"]:
            if p.get("status", {}).get("phase") != "Running" or p["metadata"].get("deletionTimestamp"):
                continue
            if not selects(sel, p["metadata"].get("labels") or {}):
                continue
            for c in p["spec"].get("containers") or []:
                wanted = from_secrets(c, known)
                if not wanted:
                    continue
                begun = started_at(p, c["name"])
                written = max((known[s][1] or "" for s, _ in wanted.values()), default="")
                if begun and written and begun > written:
                    continue  # started after the Secrets' last write: it read their current data
                env = started_env(p["metadata"]["name"], c["name"])
                if env is None:
                    continue
                for var, (sname, key) in wanted.items():
                    now = known[sname][0].get(key)
                    if var in env and now is not None and env[var] != now:
                        stale.append(f"{p['metadata']['name']}/{c['name']} started with another {var} than Secret {sname} holds now")
        if stale:
            name = d["metadata"]["name"]
            out.append(Finding(f"Deployment/{name}", "; ".join(sorted(set(stale))), ["rollout", "restart", f"deployment/{name}"]))
    return out


DETECTORS = [secret_stale]
