import { SCOPE_NAMES, type Scope } from './scopes.ts';

/**
 * What each school role may do, as scopes. A token's power is the scopes the
 * client asked for ∩ the user's role (auth.md, "Roles"); the token
 * response's `scope` says what was really granted.
 */
export const ROLES = ['owner', 'admin', 'lecturer', 'student'] as const;
export type Role = (typeof ROLES)[number];

const IDENTITY: Scope[] = ['openid', 'profile', 'email', 'account:read', 'account:write'];
const CATALOG_READ: Scope[] = ['courses:read', 'curriculum:read', 'lecturers:read', 'events:read', 'membership_plans:read', 'digital_products:read', 'posts:read', 'pages:read'];

export const ROLE_SCOPES: Record<Role, readonly Scope[]> = {
  owner: SCOPE_NAMES,
  // An admin runs the school day to day; only the owner may change who the team is.
  admin: SCOPE_NAMES.filter((s) => s !== 'members:write'),
  lecturer: [...IDENTITY, ...CATALOG_READ, 'courses:write', 'curriculum:write', 'students:read', 'events:write', 'posts:write', 'comments:read', 'storage:write', 'forms:read'],
  // Students read the public catalog anonymously; their own enrollments, orders and
  // subscriptions come with their account. No area scope would show them others' data or drafts.
  student: IDENTITY,
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** requested ∩ what the role allows, in registry order. */
export function grantableScopes(requested: readonly Scope[], role: Role): Scope[] {
  const allowed = new Set(ROLE_SCOPES[role]);
  return requested.filter((s) => allowed.has(s));
}
