// Cluster-level kinds: scheduling, node, coordination, certificates, flow control, admission
// registration (pkg/printers/internalversion/printers.go), component statuses, and APIServices
// (kube-aggregator's pkg/registry/apiservice/etcd ConvertToTable).
import type { KObject } from "../../core/types.js";
import { humanDuration, since } from "./duration.js";
import { int, str } from "./format.js";
import { AGE_COL, type Cell, col, NAME_COL, type Printer } from "./types.js";

const name = (o: KObject) => o.metadata.name ?? "";
const age = (o: KObject, now: number) => since(o.metadata.creationTimestamp, now);
type Open = Record<string, unknown>;
const field = (o: KObject, ...path: string[]): unknown =>
  path.reduce<unknown>((v, k) => (v && typeof v === "object" ? (v as Open)[k] : undefined), o);

export const priorityClassPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Value",
      "integer",
      "value represents the integer value of this priority class. This is the actual priority that pods receive when they have the name of this class in their pod spec.",
    ),
    col(
      "Global-Default",
      "boolean",
      "globalDefault specifies whether this PriorityClass should be considered as the default priority for pods that do not have any priority class. Only one PriorityClass can be marked as `globalDefault`. However, if more than one PriorityClasses exists with their `globalDefault` field set to true, the smallest value of such global default PriorityClasses will be used as the default priority.",
    ),
    AGE_COL,
    col(
      "PreemptionPolicy",
      "string",
      "preemptionPolicy is the Policy for preempting pods with lower priority. One of Never, PreemptLowerPriority. Defaults to PreemptLowerPriority if unset.",
    ),
  ],
  cells: (o, { now }) => [
    name(o),
    int(o.value),
    o.globalDefault === true,
    age(o, now),
    str(o.preemptionPolicy),
  ],
};

export const runtimeClassPrinter: Printer = {
  columns: [NAME_COL, col("Handler", "string", ""), AGE_COL],
  cells: (o, { now }) => [name(o), str(o.handler), age(o, now)],
};

export const leasePrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Holder",
      "string",
      "holderIdentity contains the identity of the holder of a current lease. If Coordinated Leader Election is used, the holder identity must be equal to the elected LeaseCandidate.metadata.name field.",
    ),
    AGE_COL,
  ],
  cells: (o, { now }) => [name(o), str(field(o, "spec", "holderIdentity")), age(o, now)],
};

/** extractCSRStatus: Denied, else Approved, else Pending; then ",Failed" and ",Issued". */
function csrStatus(o: KObject): string {
  const types = new Set(((field(o, "status", "conditions") ?? []) as { type?: string }[]).map((c) => c.type));
  let s = types.has("Denied") ? "Denied" : types.has("Approved") ? "Approved" : "Pending";
  if (types.has("Failed")) s += ",Failed";
  if (field(o, "status", "certificate")) s += ",Issued";
  return s;
}

export const csrPrinter: Printer = {
  columns: [
    NAME_COL,
    AGE_COL,
    col(
      "SignerName",
      "string",
      "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`.",
    ),
    col("Requestor", "string", "Base64-encoded PKCS#10 CSR data"),
    col(
      "RequestedDuration",
      "string",
      "expirationSeconds is the requested duration of validity of the issued certificate.",
    ),
    col("Condition", "string", "Conditions applied to the request, such as approval or denial."),
  ],
  cells(o, { now }) {
    const seconds = field(o, "spec", "expirationSeconds");
    return [
      name(o),
      age(o, now),
      str(field(o, "spec", "signerName")) || "<none>",
      str(field(o, "spec", "username")),
      typeof seconds === "number" ? humanDuration(seconds * 1000) : "<none>",
      csrStatus(o),
    ];
  },
};

export const componentStatusPrinter: Printer = {
  columns: [
    NAME_COL,
    col("Status", "string", "Status of the component conditions"),
    col("Message", "string", "Message of the component conditions"),
    col("Error", "string", "Error of the component conditions"),
  ],
  cells(o) {
    const healthy = (
      (o.conditions ?? []) as { type?: string; status?: string; message?: string; error?: string }[]
    ).find((c) => c.type === "Healthy");
    const status = !healthy ? "Unknown" : healthy.status === "True" ? "Healthy" : "Unhealthy";
    return [name(o), status, str(healthy?.message), str(healthy?.error)];
  },
};

export const apiServicePrinter: Printer = {
  columns: [
    NAME_COL,
    col("Service", "string", "The reference to the service that hosts this API endpoint."),
    col("Available", "string", "Whether this service is available."),
    AGE_COL,
  ],
  cells(o, { now }) {
    const svc = field(o, "spec", "service") as { namespace?: string; name?: string } | undefined;
    const available = ((field(o, "status", "conditions") ?? []) as Open[]).find(
      (c) => c.type === "Available",
    );
    let status = "Unknown";
    if (available)
      status =
        available.status === "True" || !available.reason
          ? str(available.status)
          : `${str(available.status)} (${str(available.reason)})`;
    return [name(o), svc ? `${str(svc.namespace)}/${str(svc.name)}` : "Local", status, age(o, now)];
  },
};

export const flowSchemaPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "PriorityLevel",
      "string",
      "`name` is the name of the priority level configuration being referenced Required.",
    ),
    col(
      "MatchingPrecedence",
      "string",
      "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.",
    ),
    col(
      "DistinguisherMethod",
      "string",
      "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.",
    ),
    AGE_COL,
    col("MissingPL", "string", "references a broken or non-existent PriorityLevelConfiguration"),
  ],
  cells(o, { now }) {
    const dangling = ((field(o, "status", "conditions") ?? []) as Open[]).find((c) => c.type === "Dangling");
    return [
      name(o),
      str(field(o, "spec", "priorityLevelConfiguration", "name")),
      int(field(o, "spec", "matchingPrecedence")),
      str(field(o, "spec", "distinguisherMethod", "type")) || "<none>",
      age(o, now),
      dangling ? str(dangling.status) : "?",
    ];
  },
};

/** printPriorityLevelConfiguration: a limited level's shares and queuing (numbers), else "<none>". */
function queuing(o: KObject): Cell[] {
  const none = ["<none>", "<none>", "<none>", "<none>"];
  const limited = field(o, "spec", "limited") as Open | undefined;
  if (!limited) return none;
  const shares = int(limited.nominalConcurrencyShares);
  const q = field(o, "spec", "limited", "limitResponse", "queuing") as Open | undefined;
  if (!q) return [shares, ...none.slice(1)];
  return [shares, int(q.queues), int(q.handSize), int(q.queueLengthLimit)];
}

export const priorityLevelPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Type",
      "string",
      '`type` indicates whether this priority level is subject to limitation on request execution.  A value of `"Exempt"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `"Limited"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server\'s limited capacity is made available exclusively to this priority level. Required.',
    ),
    col(
      "NominalConcurrencyShares",
      "string",
      "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level.",
    ),
    col(
      "Queues",
      "string",
      "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.",
    ),
    col(
      "HandSize",
      "string",
      "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.",
    ),
    col(
      "QueueLengthLimit",
      "string",
      "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.",
    ),
    AGE_COL,
  ],
  cells: (o, { now }) => [name(o), str(field(o, "spec", "type")), ...queuing(o), age(o, now)],
};

const webhooks = "Webhooks indicates the number of webhooks registered in this configuration";
export const webhookConfigurationPrinter: Printer = {
  columns: [NAME_COL, col("Webhooks", "integer", webhooks), AGE_COL],
  cells: (o, { now }) => [name(o), ((o.webhooks ?? []) as unknown[]).length, age(o, now)],
};

export const admissionPolicyPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "Validations",
      "integer",
      "Validations indicates the number of validation rules defined in this configuration",
    ),
    col("ParamKind", "string", "ParamKind specifies the kind of resources used to parameterize this policy"),
    AGE_COL,
  ],
  cells(o, { now }) {
    const kind = field(o, "spec", "paramKind") as { apiVersion?: string; kind?: string } | undefined;
    return [
      name(o),
      ((field(o, "spec", "validations") ?? []) as unknown[]).length,
      kind ? `${str(kind.apiVersion)}/${str(kind.kind)}` : "<unset>",
      age(o, now),
    ];
  },
};

export const admissionPolicyBindingPrinter: Printer = {
  columns: [
    NAME_COL,
    col(
      "PolicyName",
      "string",
      "PolicyName indicates the policy definition which the policy binding binded to",
    ),
    col("ParamRef", "string", "ParamRef indicates the param resource which sets the configration param"),
    AGE_COL,
  ],
  cells(o, { now }) {
    const ref = field(o, "spec", "paramRef") as
      | { name?: string; namespace?: string; selector?: unknown }
      | undefined;
    let param = "<unset>";
    if (ref?.name) param = ref.namespace ? `${ref.namespace}/${ref.name}` : `*/${ref.name}`;
    else if (ref?.selector) param = JSON.stringify(ref.selector);
    return [name(o), str(field(o, "spec", "policyName")), param, age(o, now)];
  },
};
