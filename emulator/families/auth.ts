/** Auth family: `requestCsrf`, `signIn`, `logout` (docs/interface.md "Sessions"). */
import { timingSafeEqual } from 'node:crypto';
import { formatDay } from '../data/dates.ts';
import { parseCookies, serializeCookie } from '../http/cookies.ts';
import { ApiError, csrfCookieMissing, csrfMismatch } from '../http/errors.ts';
import { type Handler, type HandlerContext, Reply } from '../http/handler.ts';
import { optBool, reqString } from '../http/validate.ts';

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

const cookieNames = (ctx: HandlerContext) => {
  const p = ctx.state.options.headerPrefix;
  return { csrf: `${p}-Csrf`, session: `${p}-Session-Token` };
};

/** A new pre-login CSRF value as its Set-Cookie line. */
const issueCsrfCookie = (ctx: HandlerContext): string =>
  serializeCookie(cookieNames(ctx).csrf, ctx.state.sessions.issueCsrf(), { secure: false });

const requestCsrf: Handler = (ctx) => new Reply({ status: 204, headers: { 'Set-Cookie': issueCsrfCookie(ctx) } });

const signIn: Handler = (ctx) => {
  const names = cookieNames(ctx);
  const cookies = parseCookies(ctx.req.headers.cookie);
  const presented = cookies.get(names.csrf);
  // A client that follows the retry rule of docs/interface.md ("Safe-to-repeat requests") without calling
  // requestCsrf first gets the cookie with the Cookie Missing answer, so its one retry signs in. A value that is
  // present but was not issued (or is over an hour old) is still refused.
  if (!presented) throw csrfCookieMissing(names.csrf, issueCsrfCookie(ctx));
  if (!ctx.state.sessions.csrfUsable(presented))
    throw csrfMismatch(`${names.csrf} cookie not issued by request-csrf within the last hour`);
  const userName = reqString(ctx.body, 'userName');
  const password = reqString(ctx.body, 'password');
  const { user, password: expected } = ctx.state.options;
  if (!(sameSecret(userName, user) && sameSecret(password, expected)))
    throw new ApiError(401, 'Unauthorized', 'wrong user name or password');
  const session = ctx.state.sessions.create(userName, cookies.get(names.session));
  const csrf = ctx.state.sessions.issueCsrf();
  const products = [...ctx.state.products.values()];
  const current = products[0]!;
  return new Reply({
    headers: {
      'Set-Cookie': [
        serializeCookie(names.csrf, csrf, { secure: false }),
        serializeCookie(names.session, session.token, { secure: false, httpOnly: true }),
      ],
    },
    body: {
      account: {
        name: 'Ada',
        surname: 'Lovelace',
        email: user,
        emailVerified: true,
        userToken: '5f2b9c0e7d4a4c1e9b3f6a8d2c1e0f47',
        isSocialUser: false,
        readTos: 3,
      },
      freeware: { canAddFreeProduct: true, limit: 1 },
      products: Object.fromEntries(
        products.map(({ product: p }) => [
          p.productId,
          {
            productId: p.productId,
            productName: p.productName,
            productType: p.productType,
            role: p.role,
            features: p.features,
          },
        ]),
      ),
      userSettings: { defaultProduct: current.product.productId, currentProduct: current.product.productId },
      currentProductDetails: {
        permissions: {
          viewReports: true,
          exportData: true,
          viewLicenseKeys: true,
          editLicenseKeys: true,
          viewEventTracking: true,
          manageUsers: false,
        },
        config: {
          productId: current.product.productId,
          timeZone: 'UTC',
          oldestReportedDate: formatDay(current.installDay.reduce((a, b) => Math.min(a, b), current.today)),
          daysUntilDeclaredLost: 30,
          dateReportedLost: 'dateDeclaredLost',
          customProperties: current.product.customProperties,
          rawDataExport: current.product.features.rawDataExport,
        },
      },
      beatInterval: 300,
    },
  });
};

const logout: Handler = (ctx) => {
  const allSessions = optBool(ctx.body, 'allSessions') ?? false;
  const session = ctx.session!;
  if (allSessions) ctx.state.sessions.endAll(session.userName);
  else ctx.state.sessions.end(session.token);
  return new Reply({
    status: 204,
    headers: { 'Set-Cookie': serializeCookie(cookieNames(ctx).session, '', { secure: false, maxAge: 0 }) },
  });
};

export const authHandlers: Record<string, Handler> = { requestCsrf, signIn, logout };
