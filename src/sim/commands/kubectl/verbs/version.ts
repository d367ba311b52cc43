// kubectl version (staging/src/k8s.io/kubectl/pkg/cmd/version/version.go): the client's release
// and its bundled kustomize, then the server's /version; --client alone, -o json|yaml.

import { KubectlError, kubectlVersion } from "../client.js";
import type { Run, Verb } from "../context.js";
import { toJson, toYaml } from "../output.js";

/** The kustomize each kubectl minor release vendors (its go.mod). */
const KUSTOMIZE: Record<string, string> = {
  "26": "v4.5.7",
  "27": "v5.0.1",
  "28": "v5.0.4-0.20230601165947-6ce0bf390ce3",
  "29": "v5.0.4-0.20230601165947-6ce0bf390ce3",
  "30": "v5.0.4-0.20230601165947-6ce0bf390ce3",
  "31": "v5.4.2",
  "32": "v5.5.0",
  "33": "v5.6.0",
};

async function run(r: Run): Promise<number> {
  const v = kubectlVersion(String(r.p.container.image ?? ""));
  const minor = v.version.split(".")[1];
  const client = {
    major: "1",
    minor,
    gitVersion: v.version,
    gitCommit: v.commit,
    gitTreeState: "clean",
    buildDate: "2024-12-10T11:43:21Z",
    goVersion: "go1.22.10",
    compiler: "gc",
    platform: "linux/amd64",
  };
  const kustomize = KUSTOMIZE[minor] ?? "v5.4.2";
  const o = r.f.str("output");
  if (o && o !== "json" && o !== "yaml") throw new KubectlError("error: --output must be 'yaml' or 'json'");
  let server: Record<string, unknown> | undefined;
  let failure: unknown;
  if (!r.f.bool("client"))
    try {
      server = await r.client().get("/version");
    } catch (e) {
      failure = e;
    }
  if (o) {
    const doc = {
      clientVersion: client,
      kustomizeVersion: kustomize,
      ...(server ? { serverVersion: server } : {}),
    };
    r.p.out(o === "json" ? toJson(doc) : toYaml(doc));
  } else {
    r.p.out(`Client Version: ${v.version}\nKustomize Version: ${kustomize}\n`);
    if (server) r.p.out(`Server Version: ${String(server.gitVersion)}\n`);
  }
  if (failure) throw failure;
  return 0;
}

export const version: Verb = {
  flags: { client: { type: "bool" }, output: { type: "string", short: "o" } },
  run,
};
