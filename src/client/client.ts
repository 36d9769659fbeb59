/**
 * ReportingClient: one method per operation id (grouped by family in ./families), a session that is impossible to
 * misuse (single sign-in, re-authentication, logout on every exit path of `withSession`), validated responses and
 * one error class per failure.
 */
import { isOperationId, OPERATION_BY_ID, type OperationId } from '../api/operations.ts';
import { ServiceCookieJar } from './cookie-jar.ts';
import { type Download, downloadFile } from './download.ts';
import { ResponseShapeError } from './errors.ts';
import { authSchemas, SignInResponse } from './families/auth.ts';
import type { Caller, CallOptions, SchemaMap } from './families/caller.ts';
import { type ChurnMethods, churnMethods, churnSchemas } from './families/churn.ts';
import {
  type ClientProfileMethods,
  clientProfileMethods,
  clientProfileSchemas,
  type ExportClientPropertyListRequest,
} from './families/client-profile.ts';
import { type EngagementMethods, engagementMethods, engagementSchemas } from './families/engagement.ts';
import {
  type EventManagementMethods,
  eventManagementMethods,
  eventManagementSchemas,
} from './families/event-management.ts';
import { type EventReportMethods, eventReportMethods, eventReportSchemas } from './families/event-reports.ts';
import { type FileMethods, fileMethods, fileSchemas } from './families/files.ts';
import { type GenericReportMethods, genericReportMethods, genericReportSchemas } from './families/generic-reports.ts';
import { type LicenseKeyMethods, licenseKeyMethods, licenseKeySchemas } from './families/license-keys.ts';
import { type MetadataMethods, metadataMethods, metadataSchemas } from './families/metadata.ts';
import { type ClientOptions, type ResolvedOptions, resolveClientOptions } from './options.ts';
import { SessionManager } from './session.ts';
import { readJson, validateResponse } from './shape.ts';
import { Transport } from './transport.ts';

/** Response schema of every operation id. */
export const RESPONSE_SCHEMAS: SchemaMap = {
  ...authSchemas,
  ...metadataSchemas,
  ...eventManagementSchemas,
  ...genericReportSchemas,
  ...engagementSchemas,
  ...eventReportSchemas,
  ...churnSchemas,
  ...licenseKeySchemas,
  ...fileSchemas,
  ...clientProfileSchemas,
};

export interface ReportingClient
  extends MetadataMethods,
    EventManagementMethods,
    GenericReportMethods,
    EngagementMethods,
    EventReportMethods,
    ChurnMethods,
    LicenseKeyMethods,
    FileMethods,
    ClientProfileMethods {}

// The interface above declares the family methods that the constructor assigns (declaration merging).
export class ReportingClient {
  readonly options: ResolvedOptions;
  protected readonly transport: Transport;
  protected readonly session: SessionManager;

  constructor(options: ClientOptions) {
    this.options = resolveClientOptions(options);
    this.transport = new Transport(
      this.options,
      new ServiceCookieJar(this.options.serviceOrigin, this.options.headerPrefix),
    );
    this.session = new SessionManager(this.transport, this.options);
    const caller: Caller = {
      json: (id, productId, body, opts) => this.callJson(id, productId, body, opts),
      raw: (id, productId, body, opts) =>
        this.transport.request({
          op: OPERATION_BY_ID.get(id)!,
          productId,
          body,
          signal: opts?.signal,
          ...(opts?.contentType ? { contentType: opts.contentType } : {}),
        }),
    };
    Object.assign(
      this,
      metadataMethods(caller),
      eventManagementMethods(caller),
      genericReportMethods(caller),
      engagementMethods(caller),
      eventReportMethods(caller),
      churnMethods(caller),
      licenseKeyMethods(caller),
      fileMethods(caller),
      clientProfileMethods(caller),
    );
  }

  get signedIn(): boolean {
    return this.session.signedIn;
  }

  /**
   * Milliseconds since the service last renewed this client's session (undefined when not signed in): measured from
   * when the last accepted request was sent, so never less than the service's own count towards its idle timeout.
   */
  get sessionIdleMs(): number | undefined {
    return this.session.idleMs;
  }

  /** Signs in (request-csrf, then sign-in) unless already signed in; returns the sign-in object. */
  async signIn(): Promise<SignInResponse> {
    await this.session.ensure();
    return validateResponse('signIn', SignInResponse, this.session.signInResponse);
  }

  /** Ends this session (or, with `allSessions`, every session of the user). Safe to call when not signed in. */
  logout(opts: { allSessions?: boolean } = {}): Promise<void> {
    return this.session.logout(opts.allSessions === true);
  }

  /** Signs in once, runs `fn`, and always logs out — also when `fn` throws. */
  async withSession<T>(fn: (client: this) => Promise<T>): Promise<T> {
    // ensure, not signIn: a client that is already signed in keeps its session instead of opening a second one.
    await this.session.ensure();
    try {
      return await fn(this);
    } finally {
      await this.logoutQuietly();
    }
  }

  /** Logout at the end of a scope: a failure is logged, never thrown over the scope's own outcome. */
  private async logoutQuietly(): Promise<void> {
    await this.logout().catch((e: unknown) =>
      this.options.logger?.warn('logout failed', { operationId: 'logout', error: (e as Error).name }),
    );
  }

  /**
   * Fetches a signed download URL as a stream: a bare GET with no service cookies, no Origin and no service headers
   * (docs/interface.md "Download addresses"). Request a fresh URL for every attempt.
   */
  download(fileUrl: string, opts: CallOptions = {}): Promise<Download> {
    return downloadFile(this.options, fileUrl, opts.signal);
  }

  /** `await using client = …` logs out when the scope ends. */
  async [Symbol.asyncDispose](): Promise<void> {
    await this.logoutQuietly();
  }

  /** Calls any operation by id (as `pulse api` does); validated like the typed methods. */
  async call(id: string, args: { productId?: string; body?: unknown; signal?: AbortSignal } = {}): Promise<unknown> {
    if (!isOperationId(id)) throw new TypeError(`unknown operation id ${JSON.stringify(id)}`);
    if (id === 'signIn') return this.signIn();
    if (id === 'logout') {
      const body = (args.body ?? {}) as { allSessions?: unknown };
      return this.logout({ allSessions: body.allSessions === true });
    }
    // The export is a stream sent as `*/*` whose mid-stream failures must surface: only the typed method does that.
    if (id === 'exportClientPropertyList')
      return this.exportClientPropertyList(
        args.productId ?? '',
        args.body as ExportClientPropertyListRequest,
        args.signal ? { signal: args.signal } : undefined,
      );
    return this.callJson(id, args.productId, args.body, args.signal ? { signal: args.signal } : undefined);
  }

  protected async callJson<T>(
    id: OperationId,
    productId: string | undefined,
    body?: unknown,
    opts?: CallOptions,
  ): Promise<T> {
    const schema = RESPONSE_SCHEMAS[id];
    const deadline = Date.now() + this.options.deadlineMs;
    const res = await this.transport.request({ op: OPERATION_BY_ID.get(id)!, productId, body, signal: opts?.signal });
    if (schema === null) {
      await res.body?.cancel();
      return undefined as T;
    }
    if (schema === 'stream') return res as T;
    const value = await readJson(id, res, deadline);
    if (schema === undefined)
      throw new ResponseShapeError('no schema for this operation', { operationId: id, path: '(root)' });
    return validateResponse(id, schema, value) as T;
  }
}
