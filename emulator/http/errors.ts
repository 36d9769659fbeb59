/**
 * The service's error vocabulary (docs/interface.md "Errors"). Handlers throw ApiError; the server turns it into
 * `{ error, message }` with the status, so no handler formats an error response itself.
 */
export class ApiError extends Error {
  readonly status: number;
  readonly error: string;
  readonly headers: Readonly<Record<string, string>>;

  constructor(status: number, error: string, message: string, headers: Record<string, string> = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.error = error;
    this.headers = headers;
  }
}

/** 400 with the message form `"<field path>: <problem>"` (docs/interface.md "Errors"). */
export function badRequest(path: string, problem: string): ApiError {
  return new ApiError(400, 'Bad Request', `${path}: ${problem}`);
}

export const unauthorized = (message = 'sign in first') => new ApiError(401, 'Unauthorized', message);
export const cookieMissing = () => new ApiError(401, 'Cookie Missing', 'session cookie missing; retry the request');
/** Sign-in without the CSRF cookie: the same transient error, answered with the cookie so a retry succeeds. */
export const csrfCookieMissing = (cookieName: string, setCookie: string) =>
  new ApiError(401, 'Cookie Missing', `${cookieName} cookie missing; it is set now, retry the request`, {
    'Set-Cookie': setCookie,
  });
export const originNotAllowed = () =>
  new ApiError(403, 'Origin Not Allowed', 'Origin header is missing or not allowed');
export const csrfMismatch = (message = 'CSRF header does not match the CSRF cookie') =>
  new ApiError(403, 'CSRF Mismatch', message);
export const featureNotEnabled = (feature: string) =>
  new ApiError(403, 'Feature Not Enabled', `${feature} is not enabled for this product`);
export const notFound = (message = 'no such resource') => new ApiError(404, 'Not Found', message);
export const sessionLimit = (max: number) =>
  new ApiError(409, 'Session Limit', `the user already holds the maximum of ${max} sessions`);
export const tooManyRequests = (retryAfterSeconds: number) =>
  new ApiError(429, 'Too Many Requests', 'rate limit reached', { 'Retry-After': String(retryAfterSeconds) });
export const payloadTooLarge = (limit: number) =>
  new ApiError(413, 'Payload Too Large', `body: larger than ${limit} bytes`);
