// A path glob as the stage files write them (`*` within a path segment, `**` across segments),
// as a regular expression over the whole path.
export function globRe(glob: string): RegExp {
  const body = glob
    .split(/(\*\*|\*)/)
    .map((p) => (p === "**" ? ".*" : p === "*" ? "[^/]*" : p.replace(/[.+?^${}()|[\]\\]/g, "\\$&")))
    .join("");
  return new RegExp(`^${body}$`);
}
