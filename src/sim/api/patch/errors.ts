// The two ways kube rejects a patch body: malformed (400) or not applicable (422).

import { ApiError, badRequest } from "../status.js";

export { badRequest };

/** Kube's NewGenericServerResponse(422): a fixed message, the detail as the only cause. */
export function rejected(detail: string): ApiError {
  return new ApiError(422, "Invalid", "the server rejected our request due to an error in our request", {
    causes: [{ reason: "UnexpectedServerResponse", message: detail }],
  });
}
