/**
 * Every operation of every area against the guard's decision table, over
 * real HTTP: no token, a valid token without the operation's scope, a token
 * with only that scope. Then role ∩ scope at grant time. The scope each
 * operation needs and what its public view holds come from the contract
 * stated by hand (test/helpers/area-contract.ts), not from AREA_LIST.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AREA_LIST, type AreaDef } from '../../src/platform/areas.ts';
import type { Scope } from '../../src/access/scopes.ts';
import { AREA_CONTRACT, contractOf } from '../helpers/area-contract.ts';
import { parseChallenge } from '../helpers/bearer.ts';
import { obtainTokens, startFlowServer, type FlowServer } from '../helpers/flow.ts';
import { ALL_SCOPES, IDENTITY_SCOPES, RecordMaker, allScopesBut, api, expectError, expectView, tokenSource, type ApiResponse } from '../helpers/records.ts';
import { STORE_KINDS } from '../helpers/stores.ts';

type OpName = 'list' | 'get' | 'create' | 'update' | 'delete';

interface Op {
  name: OpName;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  scope: Scope;
  /** Served to anonymous callers and to tokens without the scope. */
  publicView: boolean;
}

/** The area's operations and the scope each needs, as the contract states them by hand (area-contract.ts). */
function opsOf(area: AreaDef): Op[] {
  const contract = contractOf(area.name);
  const ops: Op[] = [];
  const publicView = contract.publicView !== undefined;
  ops.push({ name: 'list', method: 'GET', scope: contract.read as Scope, publicView });
  ops.push({ name: 'get', method: 'GET', scope: contract.read as Scope, publicView });
  if (contract.write) {
    ops.push({ name: 'create', method: 'POST', scope: contract.write as Scope, publicView: false });
    ops.push({ name: 'update', method: 'PATCH', scope: contract.write as Scope, publicView: false });
    ops.push({ name: 'delete', method: 'DELETE', scope: contract.write as Scope, publicView: false });
  }
  return ops;
}

const opLabel = (area: AreaDef, op: Op) => `${op.method} /api/v1${contractOf(area.name).path}${op.name === 'list' || op.name === 'create' ? '' : '/:id'}`;

const TABLE = AREA_LIST.map((area) => ({ area, ops: opsOf(area) }));

describe.each(STORE_KINDS)('record routes × scopes (%s)', (kind) => {
  let server: FlowServer;
  let token: (scope: string) => Promise<string>;
  let maker: RecordMaker;
  /** One published (where the area has a status) record per area, made by the owner. */
  const fixtures = new Map<string, Record<string, unknown>>();

  beforeAll(async () => {
    server = await startFlowServer(kind);
    token = tokenSource(server);
    maker = new RecordMaker(server, () => token(ALL_SCOPES));
    // Every token the table uses, obtained up front (each is one authorization).
    const scopes = new Set<string>([ALL_SCOPES, IDENTITY_SCOPES]);
    for (const { ops } of TABLE) for (const op of ops) scopes.add(op.scope).add(allScopesBut(op.scope));
    const list = [...scopes];
    await Promise.all(list.map((s) => token(s)));
    for (const { area } of TABLE) fixtures.set(area.name, await maker.make(area.name));
  });
  afterAll(() => server?.stop());

  const prm = () => `${server.issuer}/.well-known/oauth-protected-resource`;

  /** Sends the operation against the area's fixture (update/delete: `target`), with a valid body. */
  async function send(area: AreaDef, op: Op, bearer: string | undefined, target?: string): Promise<ApiResponse> {
    const id = target ?? String(fixtures.get(area.name)!.id);
    const call = bearer === undefined ? {} : { token: bearer };
    switch (op.name) {
      case 'list':
        return api(server.issuer, 'GET', contractOf(area.name).path, call);
      case 'get':
        return api(server.issuer, 'GET', `${contractOf(area.name).path}/${id}`, call);
      case 'create':
        return api(server.issuer, 'POST', contractOf(area.name).path, { ...call, body: await maker.input(area) });
      case 'update':
        return api(server.issuer, 'PATCH', `${contractOf(area.name).path}/${id}`, { ...call, body: await patchBody(area) });
      case 'delete':
        return api(server.issuer, 'DELETE', `${contractOf(area.name).path}/${id}`, call);
    }
  }

  /** A one-field change the area accepts. */
  async function patchBody(area: AreaDef): Promise<Record<string, unknown>> {
    const input = await maker.input(area);
    const name = Object.keys(input).find((n) => area.fields[n]!.type !== 'ref') ?? Object.keys(input)[0]!;
    return { [name]: input[name] };
  }

  /** A 200 with the public view: only public fields, of published records. */
  function expectPublicView(area: AreaDef, op: Op, res: ApiResponse) {
    expect(res.status, res.text).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    const records = op.name === 'list' ? res.data : [res.json];
    if (op.name === 'list') expect(records.map((r) => r.id)).toContain(fixtures.get(area.name)!.id);
    for (const r of records) {
      expectView(area, r, 'public');
      if (contractOf(area.name).publicView?.publishedOnly) expect(r.status).toBe('published');
    }
  }

  async function expectFixtureKept(area: AreaDef) {
    const res = await api(server.issuer, 'GET', `${contractOf(area.name).path}/${String(fixtures.get(area.name)!.id)}`, { token: await token(ALL_SCOPES) });
    expect(res.status, res.text).toBe(200);
  }

  it('states every area the API serves by hand, and no other (area-contract.ts)', () => {
    expect(AREA_LIST.map((a) => a.name).sort()).toEqual(Object.keys(AREA_CONTRACT).sort());
  });

  describe.each(TABLE)('$area.name', ({ area, ops }) => {
    for (const op of ops) {
      const label = opLabel(area, op);

      if (op.publicView) {
        it(`${label} without a token is served the public view, unchallenged`, async () => {
          expectPublicView(area, op, await send(area, op, undefined));
        });
        it(`${label} with a token lacking ${op.scope} is served the public view, not refused`, async () => {
          for (const lacking of [IDENTITY_SCOPES, allScopesBut(op.scope)]) {
            expectPublicView(area, op, await send(area, op, await token(lacking)));
          }
        });
      } else {
        it(`${label} without a token is refused 401 invalid_request: it needs ${op.scope}, and a tokenless request is never challenged`, async () => {
          const res = await send(area, op, undefined);
          expectError(res, 401, 'invalid_request');
          expect(res.headers.get('www-authenticate')).toBeNull();
          if (op.name === 'delete' || op.name === 'update') await expectFixtureKept(area);
        });
        it(`${label} with a token lacking ${op.scope} is refused 403 insufficient_scope naming exactly ${op.scope}`, async () => {
          for (const lacking of [IDENTITY_SCOPES, allScopesBut(op.scope)]) {
            const before = await api(server.issuer, 'GET', `${contractOf(area.name).path}/${String(fixtures.get(area.name)!.id)}`, { token: await token(ALL_SCOPES) });
            const res = await send(area, op, await token(lacking));
            expectError(res, 403, 'insufficient_scope');
            const challenge = parseChallenge(res.headers.get('www-authenticate'));
            expect(challenge.scheme).toBe('Bearer');
            expect(challenge.params).toMatchObject({ error: 'insufficient_scope', scope: op.scope, resource_metadata: prm() });
            if (op.name === 'delete' || op.name === 'update') {
              const after = await api(server.issuer, 'GET', `${contractOf(area.name).path}/${String(fixtures.get(area.name)!.id)}`, { token: await token(ALL_SCOPES) });
              expect(after.json).toEqual(before.json);
            }
          }
        });
      }

      it(`${label} with an unknown token is refused 401 invalid_token${op.publicView ? ', not served as anonymous' : ''}`, async () => {
        const res = await send(area, op, 'not-a-token-this-server-issued');
        expectError(res, 401, 'invalid_token');
        const challenge = parseChallenge(res.headers.get('www-authenticate'));
        expect(challenge.params).toMatchObject({ error: 'invalid_token', resource_metadata: prm() });
      });

      it(`${label} with a token holding only ${op.scope} succeeds`, async () => {
        const bearer = await token(op.scope);
        if (op.name === 'update' || op.name === 'delete') {
          const target = String((await maker.make(area.name)).id);
          const res = await send(area, op, bearer, target);
          expect(res.status, res.text).toBe(op.name === 'update' ? 200 : 204);
          if (op.name === 'update') expectView(area, res.json, 'full');
          const after = await api(server.issuer, 'GET', `${contractOf(area.name).path}/${target}`, { token: await token(ALL_SCOPES) });
          expect(after.status).toBe(op.name === 'update' ? 200 : 404);
          return;
        }
        const res = await send(area, op, bearer);
        expect(res.status, res.text).toBe(op.name === 'create' ? 201 : 200);
        if (op.name === 'list') {
          expect(res.data.map((r) => r.id)).toContain(fixtures.get(area.name)!.id);
          for (const r of res.data) expectView(area, r, 'full');
        } else expectView(area, res.json, 'full');
      });
    }
  });

  describe('role ∩ scope at grant time', () => {
    it('a lecturer asking for courses:write members:write is granted courses:write only, and members writes are refused', async () => {
      const lecturer = await server.addUser('lecturer');
      const { tokens } = await obtainTokens({ ...server, user: lecturer }, { scope: 'courses:write members:write' });
      expect(tokens.scope).toBe('courses:write');
      const bearer = tokens.access_token;

      const members = await api(server.issuer, 'POST', '/members', { token: bearer, body: await maker.input(AREA_LIST.find((a) => a.name === 'members')!) });
      expectError(members, 403, 'insufficient_scope');
      expect(parseChallenge(members.headers.get('www-authenticate')).params.scope).toBe('members:write');
      const memberId = String(fixtures.get('members')!.id);
      expectError(await api(server.issuer, 'PATCH', `/members/${memberId}`, { token: bearer, body: { title: 'Boss' } }), 403, 'insufficient_scope');
      expectError(await api(server.issuer, 'DELETE', `/members/${memberId}`, { token: bearer }), 403, 'insufficient_scope');

      const course = await api(server.issuer, 'POST', '/courses', { token: bearer, body: { title: 'Lecturer course' } });
      expect(course.status, course.text).toBe(201);
    });

    it('a student asking for area scopes is granted identity and account scopes only, and reading students is refused', async () => {
      const student = await server.addUser('student');
      const { tokens } = await obtainTokens({ ...server, user: student }, { scope: `${IDENTITY_SCOPES} students:read courses:read courses:write orders:read` });
      expect(tokens.scope.split(' ').sort()).toEqual(IDENTITY_SCOPES.split(' ').sort());
      const bearer = tokens.access_token;

      const students = await api(server.issuer, 'GET', '/students', { token: bearer });
      expectError(students, 403, 'insufficient_scope');
      expect(parseChallenge(students.headers.get('www-authenticate')).params.scope).toBe('students:read');
      expectError(await api(server.issuer, 'GET', '/orders', { token: bearer }), 403, 'insufficient_scope');
      expectError(await api(server.issuer, 'POST', '/courses', { token: bearer, body: { title: 'Nope' } }), 403, 'insufficient_scope');

      // The catalog stays open to them as to anyone: the public view, never drafts.
      const courses = await api(server.issuer, 'GET', '/courses', { token: bearer });
      expect(courses.status).toBe(200);
      for (const c of courses.data) expect(c.status).toBe('published');
    });
  });
});
