/**
 * Auth family: `requestCsrf`, `signIn`, `logout`. The session itself (request-csrf → signIn → cookies, logout) lives in
 * session.ts and the client's `withSession`; this module holds the sign-in response shape (top-level members strictly,
 * their contents loosely: docs/interface.md "Sessions").
 */
import * as z from 'zod';
import type { SchemaMap } from './caller.ts';

const ProductEntry = z.looseObject({
  productId: z.string().optional(),
  productName: z.string().optional(),
  productType: z.string().optional(),
  role: z.string().optional(),
  features: z.record(z.string(), z.unknown()).optional(),
});

export const SignInResponse = z.looseObject({
  account: z.looseObject({
    name: z.string(),
    surname: z.string(),
    email: z.string(),
    emailVerified: z.boolean(),
    userToken: z.string(),
    isSocialUser: z.boolean(),
    readTos: z.number().int(),
  }),
  freeware: z.looseObject({ canAddFreeProduct: z.boolean(), limit: z.number().int() }),
  products: z.record(z.string(), ProductEntry),
  userSettings: z.looseObject({ defaultProduct: z.string().nullable(), currentProduct: z.string() }),
  currentProductDetails: z.looseObject({
    permissions: z.record(z.string(), z.unknown()),
    config: z.record(z.string(), z.unknown()),
  }),
  beatInterval: z.number().int(),
});
export type SignInResponse = z.output<typeof SignInResponse>;

export const authSchemas = { requestCsrf: null, signIn: SignInResponse, logout: null } satisfies SchemaMap;
