// Methods by name (the reference's --remediate-method values).
import { MicroRemedError } from "../errors.js";
import { SoloGen } from "./sologen.js";
import { ThinkRemed } from "./thinkremed/index.js";
import type { Method } from "./types.js";

const METHODS: Record<string, () => Method> = {
  SoloGen: () => new SoloGen(),
  ThinkRemed: () => new ThinkRemed(),
};

export function registerMethod(name: string, make: () => Method) {
  METHODS[name] = make;
}

export const methodNames = () => Object.keys(METHODS);

export function resolveMethod(name: string): Method {
  const make =
    METHODS[name] ?? Object.entries(METHODS).find(([k]) => k.toLowerCase() === name.toLowerCase())?.[1];
  if (!make)
    throw new MicroRemedError(
      "E_UNKNOWN_METHOD",
      `unknown remediation method "${name}"`,
      `use one of: ${methodNames().join(", ")}`,
    );
  return make();
}
