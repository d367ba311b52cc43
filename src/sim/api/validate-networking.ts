// Validation of NetworkPolicies and EndpointSlices, as kube-apiserver v1.31 does it
// (pkg/apis/networking/validation/validation.go: ValidateNetworkPolicySpec, ...Port, ...Peer,
// ValidateIPBlock; pkg/apis/discovery/validation/validation.go), with apimachinery's label
// selector and port checks (ValidateLabelSelector, IsValidPortNum, IsValidPortName).
import type { KObject } from "../core/types.js";
import type { StatusCause } from "./status.js";

type Open = Record<string, unknown>;
const obj = (v: unknown): Open => (v && typeof v === "object" && !Array.isArray(v) ? (v as Open) : {});
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const shown = (v: unknown) => (typeof v === "string" ? JSON.stringify(v) : String(v));

const invalid = (field: string, value: unknown, message: string): StatusCause => ({
  field,
  message: `Invalid value: ${shown(value)}: ${message}`,
});
const required = (field: string, message = ""): StatusCause => ({
  field,
  reason: "FieldValueRequired",
  message: message ? `Required value: ${message}` : "Required value",
});
const notSupported = (field: string, value: unknown, supported: string[]): StatusCause => ({
  field,
  reason: "FieldValueNotSupported",
  message: `Unsupported value: ${shown(value)}: supported values: ${supported.map((s) => `"${s}"`).join(", ")}`,
});

const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** unversionedvalidation.ValidateLabelSelector: keys, values and each expression's operator. */
export function labelSelectorCauses(selector: unknown, path: string): StatusCause[] {
  const sel = obj(selector);
  const causes: StatusCause[] = [];
  for (const [k, v] of Object.entries(obj(sel.matchLabels))) {
    const name = k.includes("/") ? k.slice(k.indexOf("/") + 1) : k;
    if (!QUALIFIED_NAME.test(name) || name.length > 63)
      causes.push(
        invalid(
          `${path}.matchLabels`,
          k,
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
        ),
      );
    if (typeof v !== "string" || v.length > 63 || !LABEL_VALUE.test(v))
      causes.push(
        invalid(
          `${path}.matchLabels`,
          v,
          "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')",
        ),
      );
  }
  list(sel.matchExpressions).forEach((raw, i) => {
    const e = obj(raw);
    const at = `${path}.matchExpressions[${i}]`;
    const values = list(e.values);
    switch (e.operator) {
      case "In":
      case "NotIn":
        if (values.length === 0)
          causes.push(required(`${at}.values`, "must be specified when `operator` is 'In' or 'NotIn'"));
        break;
      case "Exists":
      case "DoesNotExist":
        if (values.length > 0)
          causes.push({
            field: `${at}.values`,
            reason: "FieldValueForbidden",
            message: "Forbidden: may not be specified when `operator` is 'Exists' or 'DoesNotExist'",
          });
        break;
      default:
        causes.push(invalid(`${at}.operator`, e.operator ?? "", "not a valid selector operator"));
    }
  });
  return causes;
}

/** validation.IsValidPortName: an IANA_SVC_NAME. */
function portNameErrors(name: string): string[] {
  const errs: string[] = [];
  if (name.length > 15) errs.push("must be no more than 15 characters");
  if (!/^[-a-z0-9]+$/.test(name))
    errs.push("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  if (!/[a-z]/.test(name)) errs.push("must contain at least one letter (a-z)");
  if (name.includes("--")) errs.push("must not contain consecutive hyphens");
  if (name.startsWith("-") || name.endsWith("-")) errs.push("must not begin or end with a hyphen");
  return errs;
}

const validPort = (n: number) => Number.isInteger(n) && n >= 1 && n <= 65535;
const PORT_RANGE = "must be between 1 and 65535, inclusive";

function portCauses(raw: unknown, at: string): StatusCause[] {
  const p = obj(raw);
  const causes: StatusCause[] = [];
  if (p.protocol !== undefined && !["TCP", "UDP", "SCTP"].includes(String(p.protocol)))
    causes.push(notSupported(`${at}.protocol`, p.protocol, ["TCP", "UDP", "SCTP"]));
  if (p.port === undefined || p.port === null) {
    if (p.endPort !== undefined)
      causes.push(invalid(`${at}.endPort`, p.endPort, "may not be specified when `port` is not specified"));
  } else if (typeof p.port === "number") {
    if (!validPort(p.port)) causes.push(invalid(`${at}.port`, p.port, PORT_RANGE));
    if (typeof p.endPort === "number") {
      if (p.endPort < p.port)
        causes.push(invalid(`${at}.endPort`, p.port, "must be greater than or equal to `port`"));
      if (!validPort(p.endPort)) causes.push(invalid(`${at}.endPort`, p.endPort, PORT_RANGE));
    }
  } else {
    if (p.endPort !== undefined)
      causes.push(invalid(`${at}.endPort`, p.endPort, "may not be specified when `port` is non-numeric"));
    for (const msg of portNameErrors(String(p.port))) causes.push(invalid(`${at}.port`, String(p.port), msg));
  }
  return causes;
}

/** An IPv4 or IPv6 CIDR as netutils.ParseCIDRSloppy reads it: address bits and prefix length. */
function parseCidr(s: string): { bits: bigint; len: number; width: number } | undefined {
  const m = /^([^/]+)\/(\d{1,3})$/.exec(s);
  if (!m) return undefined;
  const len = Number(m[2]);
  const v4 = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(m[1]);
  if (v4) {
    const parts = v4.slice(1).map(Number);
    if (parts.some((p) => p > 255) || len > 32) return undefined;
    return { bits: parts.reduce((a, p) => (a << 8n) | BigInt(p), 0n), len, width: 32 };
  }
  if (!m[1].includes(":") || len > 128) return undefined;
  const [head, tail = ""] = m[1].split("::");
  const groups = (g: string) => (g ? g.split(":") : []);
  const h = groups(head);
  const t = groups(tail);
  if (!m[1].includes("::") && h.length !== 8) return undefined;
  const all = [...h, ...Array(8 - h.length - t.length).fill("0"), ...t];
  if (all.length !== 8 || !all.every((g) => /^[0-9a-fA-F]{1,4}$/.test(g))) return undefined;
  return { bits: all.reduce((a, g) => (a << 16n) | BigInt(Number.parseInt(g, 16)), 0n), len, width: 128 };
}

function ipBlockCauses(raw: unknown, at: string): StatusCause[] {
  const b = obj(raw);
  if (!b.cidr) return [required(`${at}.cidr`)];
  const cidr = parseCidr(String(b.cidr));
  if (!cidr) return [invalid(`${at}.cidr`, String(b.cidr), `invalid CIDR address: ${String(b.cidr)}`)];
  const causes: StatusCause[] = [];
  const masked = (bits: bigint, len: number, width: number) => bits >> BigInt(width - len);
  for (const [i, e] of list(b.except).entries()) {
    const ex = parseCidr(String(e));
    if (!ex) return [...causes, invalid(`${at}.except[${i}]`, String(e), "must be a valid CIDR")];
    const inside =
      ex.width === cidr.width &&
      masked(ex.bits, cidr.len, cidr.width) === masked(cidr.bits, cidr.len, cidr.width);
    if (!inside || cidr.len >= ex.len)
      causes.push(invalid(`${at}.except[${i}]`, String(e), "must be a strict subset of `cidr`"));
  }
  return causes;
}

function peerCauses(raw: unknown, at: string): StatusCause[] {
  const p = obj(raw);
  const causes: StatusCause[] = [];
  let peers = 0;
  if (p.podSelector !== undefined && p.podSelector !== null) {
    peers++;
    causes.push(...labelSelectorCauses(p.podSelector, `${at}.podSelector`));
  }
  if (p.namespaceSelector !== undefined && p.namespaceSelector !== null) {
    peers++;
    causes.push(...labelSelectorCauses(p.namespaceSelector, `${at}.namespaceSelector`));
  }
  if (p.ipBlock !== undefined && p.ipBlock !== null) {
    peers++;
    causes.push(...ipBlockCauses(p.ipBlock, `${at}.ipBlock`));
  }
  if (peers === 0) causes.push(required(at, "must specify a peer"));
  else if (peers > 1 && p.ipBlock)
    causes.push({
      field: at,
      reason: "FieldValueForbidden",
      message: "Forbidden: may not specify both ipBlock and another peer",
    });
  return causes;
}

export function networkPolicyCauses(o: KObject): StatusCause[] {
  const spec = obj(o.spec);
  const causes = labelSelectorCauses(spec.podSelector, "spec.podSelector");
  for (const [dir, peers] of [
    ["ingress", "from"],
    ["egress", "to"],
  ] as const) {
    list(spec[dir]).forEach((rule, i) => {
      const r = obj(rule);
      const at = `spec.${dir}[${i}]`;
      for (const [j, p] of list(r.ports).entries()) causes.push(...portCauses(p, `${at}.ports[${j}]`));
      for (const [j, p] of list(r[peers]).entries()) causes.push(...peerCauses(p, `${at}.${peers}[${j}]`));
    });
  }
  const types = list(spec.policyTypes);
  if (types.length > 2) {
    causes.push(
      invalid("spec.policyTypes", JSON.stringify(types), "may not specify more than two policyTypes"),
    );
    return causes;
  }
  types.forEach((t, i) => {
    if (t !== "Ingress" && t !== "Egress")
      causes.push(notSupported(`spec.policyTypes[${i}]`, t, ["Ingress", "Egress"]));
  });
  return causes;
}

const ADDRESS_TYPES = ["IPv4", "IPv6", "FQDN"];

/** ValidateEndpointSlice, the parts clients meet: the address type and each endpoint's addresses. */
export function endpointSliceCauses(o: KObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (!o.addressType) causes.push(required("addressType"));
  else if (!ADDRESS_TYPES.includes(String(o.addressType)))
    causes.push(notSupported("addressType", o.addressType, ADDRESS_TYPES));
  list(o.endpoints).forEach((raw, i) => {
    const addresses = list(obj(raw).addresses);
    if (addresses.length === 0)
      causes.push(required(`endpoints[${i}].addresses`, "must contain at least 1 address"));
    else if (addresses.length > 100)
      causes.push({
        field: `endpoints[${i}].addresses`,
        reason: "FieldValueTooMany",
        message: "Too many: must have at most 100 items",
      });
  });
  list(o.ports).forEach((raw, i) => {
    const p = obj(raw);
    if (p.protocol !== undefined && !["TCP", "UDP", "SCTP"].includes(String(p.protocol)))
      causes.push(notSupported(`ports[${i}].protocol`, p.protocol, ["SCTP", "TCP", "UDP"]));
  });
  return causes;
}
