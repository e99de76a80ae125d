import * as z from '../../zod.js';
import type { Endpoint } from '../endpoint.js';

const tokenSchema = z.looseObject({
  clientToken: z.string().check(z.minLength(1)),
  expiresIn: z.number().check(z.positive()),
});

export type MintedToken = z.infer<typeof tokenSchema>;

/** POST /auth/token: client credentials → a bearer token (contract §5). A read: nothing changes, so safe to retry. */
export const tokenEndpoint: Endpoint<MintedToken> = {
  name: 'auth',
  what: 'getting an access token',
  method: 'POST',
  path: '/api/financial/v1/auth/token',
  retry: 'safe',
  authenticated: false,
  schema: () => tokenSchema,
};
