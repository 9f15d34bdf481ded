import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Deps } from '../../deps.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../users/passwords.ts';
import { AccountService } from '../account.ts';
import { AREAS } from '../areas.ts';
import { recordSchema, recordSummarySchema } from '../field-schemas.ts';
import type { RecordService } from '../records.ts';
import { errorResponses } from '../../http/routes/route-docs.ts';
import { declareRoute } from '../../resource/declare-route.ts';
import { patchBody } from '../../http/requests/patch-body.ts';
import { ROLES } from '../../access/roles.ts';
import { API_PREFIX } from './paths.ts';
import { tokenCaller } from './token-caller.ts';

const ACCOUNT_SCHEMA = z.object({
  id: z.string(),
  email: z.string(),
  name: z.string(),
  role: z.enum(ROLES),
  created_at: z.iso.datetime({ offset: true }),
  updated_at: z.iso.datetime({ offset: true }),
  student: recordSummarySchema(AREAS.students.fields, ['name', 'status'])
    .extend({
      enrollments: z.array(recordSchema(AREAS.enrollments.fields)),
      subscriptions: z.array(recordSchema(AREAS.subscriptions.fields)),
      orders: z.array(recordSchema(AREAS.orders.fields)),
    })
    .nullable()
    .describe("The student record linked to this account or with its email, with that student's own enrollments, subscriptions and orders; null when there is none"),
});

/** PATCH's answer: the account, and after a password change what the change ended. */
const ACCOUNT_PATCH_RESPONSE = ACCOUNT_SCHEMA.extend({
  sessions_ended: z.int().optional().describe('Only after a password change: browser sign-in sessions of the user ended (all of them)'),
  tokens_revoked: z
    .int()
    .optional()
    .describe(
      'Only after a password change: access and refresh tokens of the user revoked at every client, the one that made this request included. The client must send the user through authorization again.',
    ),
});

const PASSWORD = z.string().max(MAX_PASSWORD_LENGTH);

const ACCOUNT_PATCH_SCHEMA = patchBody(
  z.strictObject({
    name: z.string().min(1).max(200).optional().describe('Display name'),
    current_password: PASSWORD.min(1).optional().describe('Required with new_password'),
    new_password: PASSWORD.min(MIN_PASSWORD_LENGTH).optional().describe(`At least ${MIN_PASSWORD_LENGTH} characters`),
  }),
).describe(
  'name, and/or new_password with current_password. A wrong current_password is 400 invalid_request; after repeated wrong passwords for the account (here or at sign-in) it is 429 too_many_requests with Retry-After until the wait is over, even for the right one.',
);

/** GET and PATCH /api/v1/account: the signed-in user's own account. */
export function registerAccountRoutes(app: FastifyInstance, deps: Deps, records: RecordService): void {
  const account = new AccountService(deps, records);
  const tags = ['account'];
  const path = `${API_PREFIX}/account`;

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => account.read(tokenCaller(request).userId),
  );

  declareRoute(
    app,
    deps,
    {
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
    },
    async (request) => account.update(tokenCaller(request).userId, request.body, request),
  );
}
