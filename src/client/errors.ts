/**
 * One error class per failure, all under ReportingServiceError, each carrying the operation id, the HTTP status and
 * the service's own `error`/`message`. Messages are built only from those: never a password, cookie or token.
 */
export interface ErrorDetails {
  operationId: string;
  status?: number | undefined;
  /** The service's `error` member (e.g. `Cookie Missing`), when its body was readable. */
  serviceError?: string | undefined;
  /** The service's `message` member (e.g. `levels.level1.property: required`). */
  serviceMessage?: string | undefined;
  cause?: unknown;
}

export class ReportingServiceError extends Error {
  override name = 'ReportingServiceError';
  readonly operationId: string;
  readonly status: number | undefined;
  readonly serviceError: string | undefined;
  readonly serviceMessage: string | undefined;

  constructor(message: string, details: ErrorDetails) {
    super(`${details.operationId}: ${message}`, details.cause === undefined ? undefined : { cause: details.cause });
    this.operationId = details.operationId;
    this.status = details.status;
    this.serviceError = details.serviceError;
    this.serviceMessage = details.serviceMessage;
  }
}

/** 400: the request body was rejected; `serviceMessage` names the field path. */
export class BadRequestError extends ReportingServiceError {
  override name = 'BadRequestError';
}
/** 401 after re-authentication, or wrong credentials at sign-in. */
export class AuthenticationError extends ReportingServiceError {
  override name = 'AuthenticationError';
}
/** 403 `Origin Not Allowed`: the configured `origin` is not the service's dashboard origin. */
export class OriginRejectedError extends ReportingServiceError {
  override name = 'OriginRejectedError';
}
/** 403 `CSRF Mismatch`. */
export class CsrfError extends ReportingServiceError {
  override name = 'CsrfError';
}
/** 403 `Feature Not Enabled` (raw data export on a product without it). */
export class FeatureNotEnabledError extends ReportingServiceError {
  override name = 'FeatureNotEnabledError';
}
/** Any other 403. */
export class PermissionError extends ReportingServiceError {
  override name = 'PermissionError';
}
/** 404: unknown product, path or file. */
export class NotFoundError extends ReportingServiceError {
  override name = 'NotFoundError';
}
/** 409 `Session Limit` at sign-in. */
export class SessionLimitError extends ReportingServiceError {
  override name = 'SessionLimitError';
}
/** 429 after the allowed retries; `retryAfterSeconds` from the last answer. */
export class RateLimitedError extends ReportingServiceError {
  override name = 'RateLimitedError';
  readonly retryAfterSeconds: number | undefined;
  constructor(message: string, details: ErrorDetails & { retryAfterSeconds?: number | undefined }) {
    super(message, details);
    this.retryAfterSeconds = details.retryAfterSeconds;
  }
}
/** 5xx after the allowed retries. */
export class ServerError extends ReportingServiceError {
  override name = 'ServerError';
}
/** Another unexpected HTTP status. */
export class UnexpectedStatusError extends ReportingServiceError {
  override name = 'UnexpectedStatusError';
}
/** No HTTP answer at all (connection refused, reset, DNS). */
export class NetworkError extends ReportingServiceError {
  override name = 'NetworkError';
}
/** An attempt or the whole call ran past its time limit. */
export class TimeoutError extends ReportingServiceError {
  override name = 'TimeoutError';
}
/** The answer did not have the documented shape; `path` is the first bad field (`result.totals.active`). */
export class ResponseShapeError extends ReportingServiceError {
  override name = 'ResponseShapeError';
  readonly path: string;
  constructor(message: string, details: ErrorDetails & { path: string }) {
    super(message, details);
    this.path = details.path;
  }
}
/** A download from a signed URL failed: non-200 from storage, or a body shorter than announced. */
export class DownloadError extends ReportingServiceError {
  override name = 'DownloadError';
}

/** Invalid client options: fails at construction, naming the option's path. */
export class ClientConfigError extends Error {
  override name = 'ClientConfigError';
}
