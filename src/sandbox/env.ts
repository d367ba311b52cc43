// The environment a sandboxed tool starts with: built from an allowlist, never inherited, so no
// API key, token or setting of the user's reaches a playbook or a probe.
import { delimiter } from "node:path";

/** Where system tools live; a tool found elsewhere adds its own folder in front. */
export const SYSTEM_PATH = ["/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"];

export interface SandboxEnvOptions {
  home: string;
  tmp: string;
  /** The kubeconfig as seen by the tool (KUBECONFIG and K8S_AUTH_KUBECONFIG). */
  kubeconfig?: string;
  /** Folders put in front of the system PATH (a tool installed outside it). */
  pathFirst?: string[];
  /** Settings of the tool (ANSIBLE_*), added last. */
  extra?: Record<string, string>;
}

// a locale name only, so nothing but a locale can ride in on LANG
const LOCALE = /^[A-Za-z0-9_.@-]{1,40}$/;

export function sandboxEnv(o: SandboxEnvOptions): Record<string, string> {
  const lang = process.env.LANG && LOCALE.test(process.env.LANG) ? process.env.LANG : "C.UTF-8";
  const env: Record<string, string> = {
    PATH: [...new Set([...(o.pathFirst ?? []), ...SYSTEM_PATH])].join(delimiter),
    LANG: lang,
    LC_ALL: lang,
    HOME: o.home,
    TMPDIR: o.tmp,
    // the system's Python is read-only in the sandbox; do not try to write .pyc files
    PYTHONDONTWRITEBYTECODE: "1",
  };
  if (o.kubeconfig) {
    env.KUBECONFIG = o.kubeconfig;
    env.K8S_AUTH_KUBECONFIG = o.kubeconfig;
  }
  return { ...env, ...o.extra };
}
