// The name of the object a POST creates, for the API proxy's audit log (api-proxy.ts): a create's
// path ends at the collection ("POST .../services"), so without it every Service create would
// look alike, and localization (src/localization) could not tell re-creating the deleted Service
// from creating any other. Read from the request's body (kubectl, ansible and client-node send
// JSON; the API also takes YAML), or from the server's answer where the request asked for a
// generated name.
import { parse } from "yaml";

/** Bodies beyond this are not kept (a create's is a few kB; a ConfigMap's at most 1 MiB). */
const LIMIT = 2 * 1024 * 1024;

/** A stream's bytes, kept up to the limit (then dropped: a cut body has no name to read). */
export class BodyTap {
  private chunks: Buffer[] = [];
  private size = 0;

  add(chunk: Buffer | string): void {
    if (this.size > LIMIT) return;
    const b = Buffer.from(chunk);
    this.size += b.length;
    if (this.size > LIMIT) this.chunks = [];
    else this.chunks.push(b);
  }

  text(): string {
    return Buffer.concat(this.chunks).toString("utf8");
  }
}

/** metadata.name of a JSON or YAML object; undefined when the body is none, or names none. */
export function createdName(body: string, contentType = ""): string | undefined {
  if (!body.trim()) return undefined;
  let obj: unknown;
  try {
    obj = /yaml/i.test(contentType) ? parse(body) : JSON.parse(body);
  } catch {
    return undefined;
  }
  const name = (obj as { metadata?: { name?: unknown } } | null)?.metadata?.name;
  return typeof name === "string" && name ? name : undefined;
}
