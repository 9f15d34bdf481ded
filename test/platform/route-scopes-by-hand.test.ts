/**
 * The scope contract a second time, written by hand as a client reads it:
 * which scopes each role can be granted, and for a representative set of API
 * routes (at least one per area, read and write) the scope each needs and the
 * roles that may hold it. Nothing here is read from the product's own tables
 * (ROLE_SCOPES, SCOPES, AREA_LIST): if one of them is wrong, this test says so.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { api } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';
import { CONTRACT_SCOPES } from '../helpers/contract-scopes.ts';

type Role = 'owner' | 'admin' | 'lecturer' | 'student';
const ROLES: Role[] = ['owner', 'admin', 'lecturer', 'student'];

const IDENTITY = ['openid', 'profile', 'email', 'account:read', 'account:write'];

/** What each role is granted when a client asks for every scope (in the contract's order). */
const GRANTED: Record<Role, string[]> = {
  owner: CONTRACT_SCOPES,
  // Only the owner changes who the team is.
  admin: CONTRACT_SCOPES.filter((s) => s !== 'members:write'),
  // As a token response's `scope` would say it: space-separated.
  lecturer: (
    'openid profile email courses:read courses:write students:read curriculum:read curriculum:write ' +
    'events:read events:write membership_plans:read posts:read posts:write digital_products:read ' +
    'comments:read lecturers:read storage:write forms:read pages:read account:read account:write'
  ).split(' '),
  student: IDENTITY,
};

const ALL: Role[] = ['owner', 'admin', 'lecturer', 'student'];
const STAFF: Role[] = ['owner', 'admin', 'lecturer'];
const ADMINS: Role[] = ['owner', 'admin'];

/**
 * route → required scope → roles whose token may call it. Reads are of areas
 * with no public view (a public area answers a token without the scope with
 * its public view, not a 403); writes send an empty body, which the scope
 * check refuses before the body is read.
 */
const ROUTES: { method: string; path: string; scope: string; roles: Role[] }[] = [
  { method: 'POST', path: '/courses', scope: 'courses:write', roles: STAFF },
  { method: 'GET', path: '/curriculum/sections', scope: 'curriculum:read', roles: STAFF },
  { method: 'POST', path: '/curriculum/lessons', scope: 'curriculum:write', roles: STAFF },
  { method: 'GET', path: '/students', scope: 'students:read', roles: STAFF },
  { method: 'POST', path: '/students', scope: 'students:write', roles: ADMINS },
  { method: 'GET', path: '/enrollments', scope: 'students:read', roles: STAFF },
  { method: 'POST', path: '/enrollments/by-email', scope: 'students:write', roles: ADMINS },
  { method: 'POST', path: '/enrollments/by-email/bulk', scope: 'students:write', roles: ADMINS },
  { method: 'GET', path: '/members', scope: 'members:read', roles: ADMINS },
  { method: 'POST', path: '/members', scope: 'members:write', roles: ['owner'] },
  { method: 'GET', path: '/analytics', scope: 'analytics:read', roles: ADMINS },
  { method: 'GET', path: '/orders', scope: 'orders:read', roles: ADMINS },
  { method: 'PATCH', path: '/school', scope: 'school:write', roles: ADMINS },
  { method: 'PATCH', path: '/appearance', scope: 'appearance:write', roles: ADMINS },
  { method: 'GET', path: '/event-attendees', scope: 'events:read', roles: STAFF },
  { method: 'POST', path: '/events', scope: 'events:write', roles: STAFF },
  { method: 'POST', path: '/membership-plans', scope: 'membership_plans:write', roles: ADMINS },
  { method: 'GET', path: '/coupons', scope: 'coupons:read', roles: ADMINS },
  { method: 'POST', path: '/coupons', scope: 'coupons:write', roles: ADMINS },
  { method: 'POST', path: '/posts', scope: 'posts:write', roles: STAFF },
  { method: 'GET', path: '/subscriptions', scope: 'subscriptions:read', roles: ADMINS },
  { method: 'POST', path: '/subscriptions', scope: 'subscriptions:write', roles: ADMINS },
  { method: 'POST', path: '/digital-products', scope: 'digital_products:write', roles: ADMINS },
  { method: 'GET', path: '/comments', scope: 'comments:read', roles: STAFF },
  { method: 'POST', path: '/lecturers', scope: 'lecturers:write', roles: ADMINS },
  { method: 'GET', path: '/storage', scope: 'storage:write', roles: STAFF },
  { method: 'GET', path: '/forms', scope: 'forms:read', roles: STAFF },
  { method: 'GET', path: '/form-submissions', scope: 'forms:read', roles: STAFF },
  { method: 'POST', path: '/pages', scope: 'pages:write', roles: ADMINS },
  { method: 'GET', path: '/account', scope: 'account:read', roles: ALL },
  { method: 'PATCH', path: '/account', scope: 'account:write', roles: ALL },
];

describe.each(STORE_KINDS)('route → scope → roles, stated by hand (%s)', (kind) => {
  let server: FlowServer;
  /** Per role: the token a client asking for every scope gets, and the scope string granted. */
  const tokens = new Map<Role, { access: string; scope: string }>();

  beforeAll(async () => {
    server = await startFlowServer(kind);
    for (const role of ROLES) {
      const user = await server.addUser(role);
      const { tokens: t } = await obtainTokens({ ...server, user }, { scope: CONTRACT_SCOPES.join(' ') });
      tokens.set(role, { access: t.access_token, scope: t.scope });
    }
  });
  afterAll(() => server?.stop());

  for (const role of ROLES) {
    it(`grants ${role === 'owner' || role === 'admin' ? 'an' : 'a'} ${role} who approves every scope exactly the ${role}'s scopes`, () => {
      expect(tokens.get(role)!.scope.split(' ')).toEqual(GRANTED[role]);
    });
  }

  for (const { method, path, scope, roles } of ROUTES) {
    for (const role of ROLES) {
      const allowed = roles.includes(role);
      it(`${method} /api/v1${path} needs ${scope}: ${allowed ? 'served to' : '403 insufficient_scope for'} ${role === 'owner' || role === 'admin' ? 'an' : 'a'} ${role}`, async () => {
        const body = method === 'GET' ? {} : { body: {} };
        const res = await api(server.issuer, method, path, { token: tokens.get(role)!.access, ...body });
        if (allowed) {
          // Past the scope check: a read is served, a write with an empty body is judged on its body.
          expect([200, 400, 422], res.text).toContain(res.status);
          expect(res.json.error).not.toBe('insufficient_scope');
        } else {
          expect({ status: res.status, error: res.json.error }, res.text).toEqual({ status: 403, error: 'insufficient_scope' });
          expect(res.headers.get('www-authenticate')).toContain(`scope="${scope}"`);
        }
      });
    }
  }
});
