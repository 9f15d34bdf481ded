/**
 * The whole authorization-code flow as one autocannon request sequence, per
 * connection: register → authorize (sign-in page) → sign in → authorize
 * (consent page) → approve → token. Each connection keeps its own cookies;
 * a step that fails restarts the sequence (and is counted as an error).
 */
import type { LoadRequest } from './load.ts';
import { authorizePath, codeExchangeBody, cookieHeader, formFields, keepCookies, pkce, REGISTRATION_BODY } from './oauth-client.ts';
import type { Prepared } from './scenarios.ts';

interface FlowContext {
  failed?: boolean;
  jar?: Record<string, string>;
  clientId?: string;
  verifier?: string;
  signInForm?: Record<string, string>;
  consentPath?: string;
  consentForm?: Record<string, string>;
  code?: string;
}

type Headers = Record<string, string | string[]>;
const header = (headers: Headers, name: string) => {
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  return key === undefined ? undefined : headers[key];
};
const FORM = 'application/x-www-form-urlencoded';

/** The request with the connection's cookies, or null (restart) once a step failed or lacks its input. */
function next(req: LoadRequest, c: FlowContext, ready: boolean, extra: Partial<LoadRequest> = {}): LoadRequest | null {
  if (c.failed || !ready) return null;
  return { ...req, ...extra, headers: { ...req.headers, ...extra.headers, cookie: cookieHeader(c.jar ?? {}) } };
}

export function fullFlowRequests(user: { email: string; password: string }): Prepared {
  let flows = 0;
  const ctx = (context: Record<string, unknown>) => context as FlowContext;
  const requests: LoadRequest[] = [
    {
      method: 'POST',
      path: '/api/oauth/register',
      headers: { 'content-type': 'application/json' },
      body: REGISTRATION_BODY,
      expectStatus: 201,
      onResponse(status, body, context) {
        if (status === 201) ctx(context).clientId = (JSON.parse(body) as { client_id: string }).client_id;
      },
    },
    {
      method: 'GET',
      path: '/oauth/authorize',
      expectStatus: 200,
      setupRequest(req, context) {
        const c = ctx(context);
        if (c.failed || !c.clientId) return null;
        const { verifier, challenge } = pkce();
        c.verifier = verifier;
        c.jar = {};
        c.consentPath = authorizePath(c.clientId, challenge);
        return { ...req, path: c.consentPath, headers: {} };
      },
      onResponse(status, body, context, headers) {
        const c = ctx(context);
        keepCookies((c.jar ??= {}), header(headers, 'set-cookie'));
        if (status === 200) c.signInForm = formFields(body, '/oauth/sign-in');
      },
    },
    {
      method: 'POST',
      path: '/oauth/sign-in',
      expectStatus: 303,
      setupRequest(req, context) {
        const c = ctx(context);
        return next(req, c, Boolean(c.signInForm), {
          headers: { 'content-type': FORM },
          body: new URLSearchParams({ ...c.signInForm, email: user.email, password: user.password }).toString(),
        });
      },
      onResponse(_status, _body, context, headers) {
        keepCookies((ctx(context).jar ??= {}), header(headers, 'set-cookie'));
      },
    },
    {
      method: 'GET',
      path: '/oauth/authorize',
      expectStatus: 200,
      setupRequest(req, context) {
        const c = ctx(context);
        return next(req, c, Boolean(c.consentPath), { path: c.consentPath! });
      },
      onResponse(status, body, context, headers) {
        const c = ctx(context);
        keepCookies((c.jar ??= {}), header(headers, 'set-cookie'));
        if (status === 200) c.consentForm = formFields(body, '/oauth/authorize/decision');
      },
    },
    {
      method: 'POST',
      path: '/oauth/authorize/decision',
      expectStatus: 303,
      setupRequest(req, context) {
        const c = ctx(context);
        return next(req, c, Boolean(c.consentForm), {
          headers: { 'content-type': FORM },
          body: new URLSearchParams({ ...c.consentForm, decision: 'approve' }).toString(),
        });
      },
      onResponse(status, _body, context, headers) {
        const location = header(headers, 'location');
        if (status === 303 && typeof location === 'string') ctx(context).code = new URL(location).searchParams.get('code') ?? undefined;
      },
    },
    {
      method: 'POST',
      path: '/api/oauth/token',
      expectStatus: 200,
      setupRequest(req, context) {
        const c = ctx(context);
        if (c.failed || !c.code) return null;
        return { ...req, headers: { 'content-type': FORM }, body: codeExchangeBody(c.clientId!, c.code, c.verifier!) };
      },
      onResponse(status) {
        if (status === 200) flows++;
      },
    },
  ];
  return { requests, completions: () => flows };
}
