// Notes about a playbook before it runs: whether it is YAML and a list of plays, and where it
// names another namespace, --all-namespaces, or deletes namespaces or nodes. These are warnings in
// the record only, never a refusal: a regex over text fails both ways. The
// cluster's RBAC and the sandbox are what stop a playbook.
import { parse } from "yaml";

export interface PlaybookCheck {
  ok: boolean;
  problems: string[];
}

const PROTECTED = ["kube-system", "kube-public", "kube-node-lease", "chaos-mesh", "chaos-testing"];

function strings(x: unknown, out: string[] = []): string[] {
  if (typeof x === "string") out.push(x);
  else if (Array.isArray(x)) for (const v of x) strings(v, out);
  else if (x && typeof x === "object") for (const v of Object.values(x)) strings(v, out);
  return out;
}

/** Every `namespace:` value (kubernetes.core modules and manifests) anywhere in the playbook. */
function namespaceFields(x: unknown, out: string[] = []): string[] {
  if (Array.isArray(x)) for (const v of x) namespaceFields(v, out);
  else if (x && typeof x === "object") {
    for (const [k, v] of Object.entries(x)) {
      if (k === "namespace" && typeof v === "string") out.push(v);
      namespaceFields(v, out);
    }
  }
  return out;
}

export function checkPlaybook(text: string, namespace: string): PlaybookCheck {
  const problems: string[] = [];
  let doc: unknown;
  try {
    doc = parse(text);
  } catch (e) {
    return { ok: false, problems: [`not valid YAML: ${(e as Error).message.split("\n")[0]}`] };
  }
  if (
    !Array.isArray(doc) ||
    doc.length === 0 ||
    !doc.every((p) => p && typeof p === "object" && !Array.isArray(p))
  ) {
    return { ok: false, problems: ["a playbook is a YAML list of plays (each with hosts and tasks)"] };
  }
  for (const ns of namespaceFields(doc)) {
    if (ns !== namespace && !ns.includes("{{"))
      problems.push(`it targets namespace "${ns}"; only "${namespace}" may be changed`);
  }
  for (const s of strings(doc)) {
    for (const m of s.matchAll(/(?:^|\s)(?:-n|--namespace)(?:\s+|=)([a-z0-9-]+)/g)) {
      if (m[1] !== namespace)
        problems.push(`a command targets namespace "${m[1]}"; only "${namespace}" may be changed`);
    }
    if (
      /(?:^|\s)(?:-A|--all-namespaces)(?:\s|$)/.test(s) &&
      /\b(delete|patch|scale|apply|edit|set|label|annotate|replace|create|rollout)\b/.test(s)
    )
      problems.push("a command changes objects in all namespaces");
    if (/\bkubectl\b[^\n]*\bdelete\s+(ns|namespaces?|nodes?|no)\b/.test(s))
      problems.push("a command deletes a namespace or a node");
    for (const p of PROTECTED)
      if (new RegExp(`\\b${p}\\b`).test(s) && p !== namespace)
        problems.push(`it touches the protected namespace "${p}"`);
  }
  return { ok: problems.length === 0, problems: [...new Set(problems)] };
}
