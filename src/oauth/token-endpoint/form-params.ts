import { OAuthError } from '../errors.ts';

export type FormParams = Record<string, unknown>;

/**
 * Reads one form parameter. RFC 6749 §3.2: "Request and response parameters
 * MUST NOT be included more than once." Returns undefined when absent or empty.
 */
export function param(body: FormParams, name: string, max = 4096): string | undefined {
  const v = body[name];
  if (v === undefined || v === '') return undefined;
  if (typeof v !== 'string') throw new OAuthError('invalid_request', `${name} must be given exactly once`);
  if (v.length > max) throw new OAuthError('invalid_request', `${name} is too long`);
  return v;
}

export function requiredParam(body: FormParams, name: string, max?: number): string {
  const v = param(body, name, max);
  if (v === undefined) throw new OAuthError('invalid_request', `${name} is required`);
  return v;
}

/**
 * The form body, or a clear error when the request was not a form.
 * RFC 6749 §3.2 / RFC 7009 §2.1 / RFC 7662 §2.1: parameters are sent "using the
 * application/x-www-form-urlencoded format"; a JSON body is refused.
 */
export function formBody(request: { headers: Record<string, string | string[] | undefined>; body: unknown }): FormParams {
  const type = request.headers['content-type'];
  const body = request.body;
  if (typeof type !== 'string' || !/^application\/x-www-form-urlencoded\b/i.test(type) || typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded');
  }
  return body as FormParams;
}
