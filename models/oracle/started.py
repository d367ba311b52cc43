# The incident oracle's detectors for what a process read when it started (docs/incident-tier.md,
# the template family). Each reads only what the case's identity reads and returns Findings;
# incident-fix.py runs them with its own.
#   secret_stale         (template-secret-rotated) a container reads a Secret it takes variables
#                        from (envFrom's secretRef, secretKeyRef) once, when it starts: after a
#                        rotation the side that did not restart holds the old value. It compares
#                        the running containers' environment (read through exec) with the Secret's
#                        data now, and restarts a Deployment whose containers hold another value.
#                        The Secret is never written (the identity cannot; the rotation is the
#                        intended state). Containers started after the Secret's last write (its
#                        managedFields' times) are not read: they hold its current data.
#   mounted_option_file  (template-mounted-file) a MySQL option file mounted from a ConfigMap into
#                        conf.d that binds the server to loopback: the line set to every IPv4
#                        address, then the server restarted to read it.
import base64
import json
import re

from cluster import get, kubectl


class Finding:
    """As incident-fix.py's: the object ("Kind/name"), what is wrong, the kubectl call that fixes it."""

    def __init__(self, obj, why, fix, stdin=None):
        self.obj, self.why, self.fix, self.stdin = obj, why, fix, stdin


def items(kind):
    return (get(kind) or {}).get("items", [])


REFS = {"Secret": ("secrets", "secretRef", "secretKeyRef"), "ConfigMap": ("configmaps", "configMapRef", "configMapKeyRef")}


def source_data(kind):
    """Each Secret's (decoded) or ConfigMap's data, and the time of its last write (the newest managedFields entry)."""
    out = {}
    for s in items(REFS[kind][0]):
        data = s.get("data") or {}
        if kind == "Secret":
            data = {k: base64.b64decode(v).decode("utf-8", "replace") for k, v in data.items()}
        times = [m.get("time") for m in s["metadata"].get("managedFields") or [] if m.get("time")]
        out[s["metadata"]["name"]] = (data, max(times) if times else None)
    return out


def taken_from(container, known, kind):
    """The variables a container takes from Secrets or ConfigMaps of `kind`: name -> (source, key)."""
    _, ref_key, key_ref = REFS[kind]
    out = {}
    for src in container.get("envFrom") or []:
        ref = src.get(ref_key)
        if ref and ref.get("name") in known:
            for key in known[ref["name"]][0]:
                out[f"{src.get('prefix') or ''}{key}"] = (ref["name"], key)
    for e in container.get("env") or []:
        ref = (e.get("valueFrom") or {}).get(key_ref)
        if ref and ref.get("name") in known:
            out[e["name"]] = (ref["name"], ref.get("key"))
        else:
            out.pop(e["name"], None)  # a later entry of the same name wins
    return out


def takes_from(container, kind):
    _, ref_key, key_ref = REFS[kind]
    return any(s.get(ref_key) for s in container.get("envFrom") or []) or any(
        key_ref in (e.get("valueFrom") or {}) for e in container.get("env") or []
    )


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


def stale_starts(st, kind, say):
    """
    Findings: each Deployment whose running containers started with another value than the
    Secret or ConfigMap (`kind`) they take it from holds now, restarted. Containers started after
    their sources' last write are not read: they hold the current data. `say(pod, var, source,
    started, now)` words one difference.
    """
    known = None
    out = []
    for d in st["deployments"]:
        if not any(takes_from(c, kind) for c in d["spec"]["template"]["spec"].get("containers") or []):
            continue
        known = source_data(kind) if known is None else known
        sel = d["spec"].get("selector", {}).get("matchLabels") or {}
        stale = []
        for p in st["pods"]:
            if p.get("status", {}).get("phase") != "Running" or p["metadata"].get("deletionTimestamp"):
                continue
            if not selects(sel, p["metadata"].get("labels") or {}):
                continue
            for c in p["spec"].get("containers") or []:
                wanted = taken_from(c, known, kind)
                if not wanted:
                    continue
                begun = started_at(p, c["name"])
                written = max((known[s][1] or "" for s, _ in wanted.values()), default="")
                if begun and written and begun > written:
                    continue  # started after its sources' last write: it read their current data
                env = started_env(p["metadata"]["name"], c["name"])
                if env is None:
                    continue
                for var, (source, key) in sorted(wanted.items()):
                    now = known[source][0].get(key)
                    if var in env and now is not None and env[var] != now:
                        stale.append(say(f"{p['metadata']['name']}/{c['name']}", var, source, env[var], now))
        if stale:
            name = d["metadata"]["name"]
            out.append(Finding(f"Deployment/{name}", "; ".join(sorted(set(stale))), ["rollout", "restart", f"deployment/{name}"]))
    return out


def secret_stale(st):
    """A Deployment whose running containers started with another value than their Secret holds now (never shown)."""
    return stale_starts(st, "Secret", lambda pod, var, source, _was, _now: f"{pod} started with another {var} than Secret {source} holds now")


CONF_DIRS = ("/etc/mysql/conf.d", "/etc/mysql/mysql.conf.d")
SERVER_GROUP = re.compile(r"^(mysqld|server|mysqld-\d+\.\d+)$")
BIND = re.compile(r"^(\s*bind[-_]address\s*=\s*)(\S+)(.*)$")
LOOPBACK = re.compile(r"^(127\.\d+\.\d+\.\d+|localhost|::1)$")


def loopback_binds(text):
    """The lines of an option file's server groups that bind the server to the loopback address."""
    group, out = "", []
    for i, line in enumerate(text.split("\n")):
        g = re.match(r"^\s*\[([^\]]+)\]\s*$", line)
        if g:
            group = g.group(1).strip().lower()
            continue
        m = BIND.match(line)
        if m and SERVER_GROUP.match(group) and LOOPBACK.match(m.group(2).strip("'\"")):
            out.append(i)
    return out


def mounted_option_file(st):
    """A MySQL option file (a ConfigMap mounted into conf.d) that binds the server to loopback: it
    refuses every connection to its pod's IP once it has read it at a start. The line set to every
    IPv4 address, then the server restarted to read it (either alone leaves it bound to loopback)."""
    maps = {c["metadata"]["name"]: c for c in items("configmaps")}
    out, fixed = [], set()
    for d in st["deployments"]:
        spec = d["spec"]["template"]["spec"]
        volumes = {v["name"]: v for v in spec.get("volumes") or []}
        for c in spec.get("containers") or []:
            for vm in c.get("volumeMounts") or []:
                ref = (volumes.get(vm["name"]) or {}).get("configMap")
                if not ref or vm.get("mountPath", "").rstrip("/") not in CONF_DIRS or ref["name"] not in maps:
                    continue
                data = maps[ref["name"]].get("data") or {}
                changed = {}
                for key, text in data.items():
                    lines = loopback_binds(text or "")
                    if key.endswith(".cnf") and lines:
                        rows = text.split("\n")
                        for i in lines:
                            m = BIND.match(rows[i])
                            rows[i] = f"{m.group(1)}0.0.0.0{m.group(3)}"
                        changed[key] = "\n".join(rows)
                if changed and ref["name"] not in fixed:
                    fixed.add(ref["name"])
                    out.append(Finding(f"ConfigMap/{ref['name']}", f"{', '.join(changed)} binds the server to loopback: no connection to the pod reaches it", ["patch", "configmap", ref["name"], "--type", "merge", "-p", json.dumps({"data": changed})]))
                if changed:
                    name = d["metadata"]["name"]
                    out.append(Finding(f"Deployment/{name}", "its server read the option file when it started: restarted to read it again", ["rollout", "restart", f"deployment/{name}"]))
    return out


DETECTORS = [secret_stale, mounted_option_file]
