/**
 * Device authorization grant (RFC 8628) steps over real HTTP: register a
 * device client, start an authorization, confirm the code on the device
 * page as a person would, poll the token endpoint.
 */
import type { DeviceAuthorizationResponse } from '../../src/oauth/device/authorization-route.ts';
import { register, postForm } from './oauth.ts';
import type { FormResponse } from './flow.ts';
import { asPage, parseForms, UserAgent, type Page } from './user-agent.ts';

export const DEVICE_GRANT = 'urn:ietf:params:oauth:grant-type:device_code';

export interface DeviceClient {
  clientId: string;
  clientSecret?: string;
}

/** A client of the device grant and refresh, with no redirect URI (as a CLI in an SSH session registers). */
export async function registerDeviceClient(issuer: string, opts: { confidential?: boolean; grantTypes?: string[] } = {}): Promise<DeviceClient> {
  const { status, json } = await register(issuer, {
    client_name: 'Remote agent',
    grant_types: opts.grantTypes ?? [DEVICE_GRANT, 'refresh_token'],
    token_endpoint_auth_method: opts.confidential ? 'client_secret_post' : 'none',
  });
  if (status !== 201) throw new Error(`registration failed (${status}): ${JSON.stringify(json)}`);
  return { clientId: json.client_id as string, ...(typeof json.client_secret === 'string' ? { clientSecret: json.client_secret } : {}) };
}

const auth = (c: DeviceClient) => ({ client_id: c.clientId, ...(c.clientSecret ? { client_secret: c.clientSecret } : {}) });

/** What the device authorization endpoint answers: the server's own type, so the two cannot drift. */
export type DeviceStart = DeviceAuthorizationResponse;

export function requestDeviceAuthorization(issuer: string, client: DeviceClient, fields: Record<string, string> = {}): Promise<FormResponse> {
  return postForm(`${issuer}/api/oauth/device_authorization`, { ...auth(client), ...fields });
}

export async function startDevice(issuer: string, client: DeviceClient, fields: Record<string, string> = { scope: 'openid courses:read students:read' }): Promise<DeviceStart> {
  const res = await requestDeviceAuthorization(issuer, client, fields);
  if (res.status !== 200) throw new Error(`device authorization failed (${res.status}): ${res.text}`);
  return res.json as unknown as DeviceStart;
}

export function pollToken(issuer: string, client: DeviceClient, deviceCode: string, fields: Record<string, string> = {}): Promise<FormResponse> {
  return postForm(`${issuer}/api/oauth/token`, { grant_type: DEVICE_GRANT, device_code: deviceCode, ...auth(client), ...fields });
}

/** Opens a device page URL, signing in first when the page asks for it: the page it ends on. */
export async function openDevicePage(agent: UserAgent, url: string, user: { email: string; password: string }): Promise<Page> {
  const page = asPage(await agent.navigate(url));
  return parseForms(page.html).some((f) => f.action === '/oauth/sign-in') ? agent.signIn(page, user) : page;
}

/** Types `userCode` into the device page's form: the page that answers (consent, or the form again with an error). */
export async function submitCode(agent: UserAgent, page: Page, userCode: string): Promise<Page> {
  const form = parseForms(page.html).find((f) => f.action === '/oauth/device');
  if (!form) throw new Error(`no code form on the page (${page.status}): ${page.html.slice(0, 400)}`);
  return asPage(await agent.submit(form, { user_code: userCode }));
}

/** Presses Allow or Deny on the device consent page: the page that answers. */
export async function decide(agent: UserAgent, consent: Page, decision: 'approve' | 'deny'): Promise<Page> {
  const form = parseForms(consent.html).find((f) => f.action === '/oauth/device/decision');
  if (!form) throw new Error(`no decision form on the page (${consent.status}): ${consent.html.slice(0, 400)}`);
  return asPage(await agent.submit(form, { decision }));
}

/** A person opens verification_uri_complete, signs in, confirms the code and decides. */
export async function approveDevice(
  issuer: string,
  start: DeviceStart,
  user: { email: string; password: string },
  decision: 'approve' | 'deny' = 'approve',
  agent = new UserAgent(issuer),
): Promise<Page> {
  const page = await openDevicePage(agent, start.verification_uri_complete, user);
  const consent = await submitCode(agent, page, start.user_code);
  return decide(agent, consent, decision);
}
