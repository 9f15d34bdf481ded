import type { FastifyInstance } from 'fastify';
import type { Deps } from '../../deps.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../users/passwords.ts';
import { AccountService, type AccountPatch } from '../account.ts';
import { AREAS } from '../areas.ts';
import { recordSchema } from '../fields.ts';
import type { RecordService } from '../records.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { API_PREFIX } from './paths.ts';
import { tokenCaller } from './token-caller.ts';

const ACCOUNT_SCHEMA = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    email: { type: 'string' },
    name: { type: 'string' },
    role: { type: 'string', enum: ['owner', 'admin', 'lecturer', 'student'] },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
    student: {
      type: 'object',
      nullable: true,
      description: "The student record linked to this account or with its email, with that student's own enrollments, subscriptions and orders; null when there is none",
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        status: { type: 'string' },
        enrollments: { type: 'array', items: recordSchema(AREAS.enrollments.fields) },
        subscriptions: { type: 'array', items: recordSchema(AREAS.subscriptions.fields) },
        orders: { type: 'array', items: recordSchema(AREAS.orders.fields) },
      },
    },
  },
};

/** PATCH's answer: the account, and after a password change what the change ended. */
const ACCOUNT_PATCH_RESPONSE = {
  ...ACCOUNT_SCHEMA,
  properties: {
    ...ACCOUNT_SCHEMA.properties,
    sessions_ended: {
      type: 'integer',
      description: 'Only after a password change: browser sign-in sessions of the user ended (all of them)',
    },
    tokens_revoked: {
      type: 'integer',
      description:
        'Only after a password change: access and refresh tokens of the user revoked at every client, the one that made this request included. The client must send the user through authorization again.',
    },
  },
};

const PASSWORD = { type: 'string', maxLength: MAX_PASSWORD_LENGTH };

const ACCOUNT_PATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  description:
    'name, and/or new_password with current_password. A wrong current_password is 400 invalid_request; after repeated wrong passwords for the account (here or at sign-in) it is 429 too_many_requests with Retry-After until the wait is over, even for the right one.',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200, description: 'Display name' },
    current_password: { ...PASSWORD, minLength: 1, description: 'Required with new_password' },
    new_password: { ...PASSWORD, minLength: MIN_PASSWORD_LENGTH, description: `At least ${MIN_PASSWORD_LENGTH} characters` },
  },
};

/** GET and PATCH /api/v1/account: the signed-in user's own account. */
export function registerAccountRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const account = new AccountService(deps, records);
  const tags = ['account'];
  const path = `${API_PREFIX}/account`;

  declareRoute(app, deps, {
    method: 'GET',
    path,
    operationId: 'getAccount',
    scopes: ['account:read'],
    schema: {
      tags,
      summary: 'Read your account',
      description: "The token's user, and their own student record with enrollments, subscriptions and orders.",
      response: { 200: ACCOUNT_SCHEMA, ...errorResponses([401, 403, 404]) },
    },
  }, async (request) => account.read(tokenCaller(request).userId));

  declareRoute(app, deps, {
    method: 'PATCH',
    path,
    operationId: 'updateAccount',
    scopes: ['account:write'],
    schema: {
      tags,
      summary: 'Change your name or password',
      description:
        'A password change signs the user out everywhere: every browser session ends and every token of the user is revoked, this one included (sessions_ended, tokens_revoked); sign in again afterwards.',
      body: ACCOUNT_PATCH_SCHEMA,
      response: { 200: ACCOUNT_PATCH_RESPONSE, ...errorResponses([400, 401, 403, 404, 429]) },
    },
  }, async (request) => account.update(tokenCaller(request).userId, request.body as AccountPatch, request));
}
