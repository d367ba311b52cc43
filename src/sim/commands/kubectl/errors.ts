// kubectl's words for an error (k8s.io/kubectl/pkg/cmd/util/helpers.go checkErr and
// standardErrorMessage): a Status the server sent as `Error from server (Reason): message`, an
// Invalid one as `The Kind "name" is invalid: field: message`, anything else as `error: message`.
import { KubectlError, StatusError } from "./client.js";

/** kubectl's message for an error, as checkErr prints it. */
export function errorText(e: unknown): string {
  if (e instanceof StatusError) {
    const s = e.status;
    const d = s.details;
    if (s.reason === "Invalid" && d?.causes?.length) {
      const head =
        d.kind || d.name ? `The ${d.kind ?? ""} "${d.name ?? ""}" is invalid` : "The request is invalid";
      const errs = d.causes.map((c) => (c.field ? `${c.field}: ${c.message ?? ""}` : (c.message ?? "")));
      return errs.length === 1 ? `${head}: ${errs[0]}` : `${head}: \n${errs.map((x) => `* ${x}`).join("\n")}`;
    }
    return s.reason ? `Error from server (${s.reason}): ${e.message}` : `Error from server: ${e.message}`;
  }
  const msg = (e as Error)?.message ?? String(e);
  if (e instanceof KubectlError) return msg;
  return msg.startsWith("error: ") ? msg : `error: ${msg}`;
}
