// Who a request is from, as k8s.io/apiserver/pkg/authentication/user describes it.

export interface UserInfo {
  name: string;
  uid?: string;
  groups: string[];
  extra?: Record<string, string[]>;
}

export const SYSTEM_MASTERS = "system:masters";
export const AUTHENTICATED = "system:authenticated";
export const UNAUTHENTICATED = "system:unauthenticated";
export const ANONYMOUS: UserInfo = { name: "system:anonymous", groups: [UNAUTHENTICATED] };

const SA_PREFIX = "system:serviceaccount:";

/** The user a ServiceAccount's token authenticates as (serviceaccount.UserInfo). */
export function serviceAccountUser(namespace: string, name: string, uid?: string): UserInfo {
  return {
    name: `${SA_PREFIX}${namespace}:${name}`,
    ...(uid ? { uid } : {}),
    groups: ["system:serviceaccounts", `system:serviceaccounts:${namespace}`, AUTHENTICATED],
  };
}

/** "system:serviceaccount:NS:NAME" → [NS, NAME]. */
export function splitServiceAccount(user: string): [string, string] | undefined {
  if (!user.startsWith(SA_PREFIX)) return undefined;
  const parts = user.slice(SA_PREFIX.length).split(":");
  return parts.length === 2 && parts[0] && parts[1] ? [parts[0], parts[1]] : undefined;
}

export const isPrivileged = (u: UserInfo) => u.groups.includes(SYSTEM_MASTERS);
