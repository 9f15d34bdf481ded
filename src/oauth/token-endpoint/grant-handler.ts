import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.ts';
import type { Client } from '../../store/types.ts';
import type { FormParams } from './form-params.ts';
import type { TokenResponse } from './issue-tokens.ts';
import type { GrantType } from '../../util/authorization-server.ts';

/** One grant type's handler. The token endpoint picks it by grant_type; adding a grant edits no other. */
export interface GrantHandler {
  grantType: GrantType;
  handle(ctx: { request: FastifyRequest; body: FormParams; client: Client; deps: Deps }): Promise<TokenResponse>;
}
