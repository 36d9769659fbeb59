/**
 * Turns a non-2xx answer into the error class of its failure (docs/interface.md "Errors"), reading the body
 * defensively.
 */
import {
  AuthenticationError,
  BadRequestError,
  CsrfError,
  type ErrorDetails,
  FeatureNotEnabledError,
  NotFoundError,
  OriginRejectedError,
  PermissionError,
  RateLimitedError,
  type ReportingServiceError,
  ServerError,
  SessionLimitError,
  UnexpectedStatusError,
} from './errors.ts';

export interface ServiceErrorBody {
  error?: string;
  message?: string;
}

/** `{error, message}` when the body is the service's JSON error; intermediaries may send HTML or nothing. */
export function parseErrorBody(text: string): ServiceErrorBody {
  try {
    const v: unknown = JSON.parse(text);
    if (typeof v !== 'object' || v === null) return {};
    const o = v as Record<string, unknown>;
    return {
      ...(typeof o.error === 'string' ? { error: o.error.slice(0, 200) } : {}),
      ...(typeof o.message === 'string' ? { message: o.message.slice(0, 1000) } : {}),
    };
  } catch {
    return {};
  }
}

export function retryAfterSeconds(headers: Headers): number | undefined {
  const v = headers.get('retry-after');
  if (v === null) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

export function errorForStatus(
  operationId: string,
  status: number,
  statusText: string,
  body: ServiceErrorBody,
  headers: Headers,
): ReportingServiceError {
  const details: ErrorDetails = { operationId, status, serviceError: body.error, serviceMessage: body.message };
  const text = `${status} ${body.error ?? statusText}${body.message ? `: ${body.message}` : ''}`;
  if (status === 400) return new BadRequestError(text, details);
  if (status === 401) return new AuthenticationError(text, details);
  if (status === 403) {
    if (body.error === 'Origin Not Allowed') return new OriginRejectedError(text, details);
    if (body.error === 'CSRF Mismatch') return new CsrfError(text, details);
    if (body.error === 'Feature Not Enabled') return new FeatureNotEnabledError(text, details);
    return new PermissionError(text, details);
  }
  if (status === 404) return new NotFoundError(text, details);
  if (status === 409) return new SessionLimitError(text, details);
  if (status === 429) return new RateLimitedError(text, { ...details, retryAfterSeconds: retryAfterSeconds(headers) });
  if (status >= 500) return new ServerError(text, details);
  return new UnexpectedStatusError(text, details);
}
