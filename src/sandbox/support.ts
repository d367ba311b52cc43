// Can bubblewrap run here? Linux only, bwrap installed, and user namespaces allowed (or root).
// Asked once per process; `run` refuses without it unless the user chose `--sandbox none`.
import { execa } from "execa";
import { MicroRemedError } from "../errors.js";

export type SandboxMode = "bwrap" | "none";
export const SANDBOX_MODES: readonly SandboxMode[] = ["bwrap", "none"];

export type SandboxSupport = { ok: true; version: string } | { ok: false; reason: string; fix: string };

let cached: Promise<SandboxSupport> | undefined;

async function probe(): Promise<SandboxSupport> {
  if (process.platform !== "linux")
    return {
      ok: false,
      reason: `bubblewrap needs Linux; this is ${process.platform}`,
      fix: "run on Linux, or pass --sandbox none to run playbooks unconfined",
    };
  const version = await execa("bwrap", ["--version"], { reject: false, timeout: 10_000 });
  if (version.failed && version.code === "ENOENT")
    return {
      ok: false,
      reason: "bubblewrap (bwrap) is not installed",
      fix: "apt-get install bubblewrap (scripts/setup.sh does), or pass --sandbox none",
    };
  // the same namespaces the executor asks for, on the smallest root that can run /usr/bin/true
  const trial = await execa(
    "bwrap",
    [
      "--unshare-all",
      "--die-with-parent",
      "--ro-bind",
      "/usr",
      "/usr",
      ...usrSymlinks(),
      "--",
      "/usr/bin/true",
    ],
    { reject: false, timeout: 10_000, env: { PATH: "/usr/bin:/bin" }, extendEnv: false },
  );
  if (trial.exitCode !== 0)
    return {
      ok: false,
      reason: `bubblewrap cannot create namespaces here: ${String(trial.stderr).trim() || `exit code ${trial.exitCode}`}`,
      fix: "allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or on Ubuntu kernel.apparmor_restrict_unprivileged_userns=0), or pass --sandbox none",
    };
  return { ok: true, version: String(version.stdout).trim() };
}

/** bin, lib... as the host has them: symlinks into /usr on merged-/usr systems. */
export function usrSymlinks(): string[] {
  return ["bin", "sbin", "lib", "lib64"].flatMap((d) => ["--symlink", `usr/${d}`, `/${d}`]);
}

export function sandboxSupport(): Promise<SandboxSupport> {
  cached ??= probe();
  return cached;
}

/** Throws the typed refusal when `mode` is bwrap and bubblewrap cannot run here. */
export async function requireSandbox(mode: SandboxMode): Promise<void> {
  if (mode === "none") return;
  const s = await sandboxSupport();
  if (!s.ok) throw new MicroRemedError("E_SANDBOX", `playbooks cannot be sandboxed: ${s.reason}`, s.fix);
}

export function parseSandboxMode(v: string): SandboxMode {
  if ((SANDBOX_MODES as readonly string[]).includes(v)) return v as SandboxMode;
  throw new MicroRemedError(
    "E_USAGE",
    `--sandbox must be bwrap or none, not "${v}"`,
    "pass --sandbox bwrap or --sandbox none",
  );
}
