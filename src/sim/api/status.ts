// Kubernetes Status errors: what the API answers when a request fails.

export type StatusReason =
  | "BadRequest"
  | "NotFound"
  | "AlreadyExists"
  | "Conflict"
  | "Invalid"
  | "Forbidden"
  | "Unauthorized"
  | "MethodNotAllowed"
  | "UnsupportedMediaType"
  | "NotAcceptable"
  | "Gone"
  | "Expired"
  | "InternalError"
  | "Timeout"
  | "TooManyRequests"
  /** StatusReasonUnknown: errors the API server did not type (the reason field is left out). */
  | "";

export interface StatusCause {
  /** Go's StatusCause.Type, serialized as "reason". */
  reason?: string;
  message: string;
  field?: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  uid?: string;
  causes?: StatusCause[];
  retryAfterSeconds?: number;
}

/** An error the API server returns to the client as a Status object. Never crashes the server. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: StatusReason,
    message: string,
    readonly details?: StatusDetails,
  ) {
    super(message);
    this.name = "ApiError";
  }

  toStatus(): Record<string, unknown> {
    return {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: this.message,
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

const qualified = (resource: string, group: string) => (group ? `${resource}.${group}` : resource);

export const notFound = (resource: string, group: string, name: string) =>
  new ApiError(404, "NotFound", `${qualified(resource, group)} "${name}" not found`, {
    name,
    group: group || undefined,
    kind: resource,
  });

export const alreadyExists = (resource: string, group: string, name: string) =>
  new ApiError(409, "AlreadyExists", `${qualified(resource, group)} "${name}" already exists`, {
    name,
    group: group || undefined,
    kind: resource,
  });

export const conflict = (resource: string, group: string, name: string) =>
  new ApiError(
    409,
    "Conflict",
    `Operation cannot be fulfilled on ${qualified(resource, group)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    { name, group: group || undefined, kind: resource },
  );

export const badRequest = (message: string) => new ApiError(400, "BadRequest", message);

/**
 * errors.NewInvalid: the message names the qualified kind ("Deployment.apps"); the details carry
 * the kind and group apart, which is what kubectl prints ("The Deployment "web" is invalid").
 */
export const invalid = (qualifiedKind: string, name: string, causes: StatusCause[]) => {
  const dot = qualifiedKind.indexOf(".");
  const kind = dot < 0 ? qualifiedKind : qualifiedKind.slice(0, dot);
  const group = dot < 0 ? undefined : qualifiedKind.slice(dot + 1);
  return new ApiError(
    422,
    "Invalid",
    `${qualifiedKind} "${name}" is invalid: ${causes.map((c) => (c.field ? `${c.field}: ${c.message}` : c.message)).join(", ")}`,
    {
      name,
      ...(group ? { group } : {}),
      kind,
      causes: causes.map((c) => ({ reason: c.reason ?? "FieldValueInvalid", ...c })),
    },
  );
};

export const unsupportedMediaType = (contentType: string) =>
  new ApiError(
    415,
    "UnsupportedMediaType",
    `the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml${contentType ? ` (got ${contentType})` : ""}`,
  );

export const gone = (message: string) => new ApiError(410, "Expired", message);
