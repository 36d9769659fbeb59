/**
 * The run's planned report calls (plan-calls.ts), made once each under one session. A call the service refuses or
 * that fails does not stop the others: only the rules whose figures come from it go unjudged, each named with why
 * (a rule's own mistake, such as a property the product lacks, should not silence every other rule). A sign-in that
 * fails still fails the whole run: nothing can be judged then. A product's exception files are one planned call:
 * its listing and downloads (exception-counts.ts) stand or fall together, each call among them counted.
 */
import {
  AuthenticationError,
  BadRequestError,
  FeatureNotEnabledError,
  forEachWithConcurrency,
  NotFoundError,
  OriginRejectedError,
  PermissionError,
  type ReportingClient,
  SessionLimitError,
} from '../client/index.ts';
import { countExceptions } from './exception-counts.ts';
import type { PlannedCall } from './plan-calls.ts';

export interface CallFailure {
  /** "BadRequestError: dateRangeReport: …": the client's messages never carry credentials. */
  reason: string;
  /**
   * True when asking again will not help (the service refused the request, the product or feature is not there):
   * the rule's owner should change the rule. False for faults that may pass (5xx, network, rate limits).
   */
  lasting: boolean;
}

export interface Fetched {
  /** The `result` member of each answered call, by call key. */
  answers: Map<string, unknown>;
  failed: Map<string, CallFailure>;
  /** Calls answered. */
  calls: number;
}

export async function fetchAnswers(
  client: ReportingClient,
  calls: readonly PlannedCall[],
  concurrency: number,
): Promise<Fetched> {
  const fetched: Fetched = { answers: new Map(), failed: new Map(), calls: 0 };
  // Nothing to ask (every rule up to date): no sign-in either, which would hold one of the user's sessions.
  if (calls.length === 0) return fetched;
  await client.withSession(async (session) => {
    await forEachWithConcurrency(calls, concurrency, async (call) => {
      try {
        if (call.operationId === 'exceptionsListFiles') {
          const { startDate, stopDate } = call.request as { startDate: string; stopDate: string };
          const counted = await countExceptions(session, call.productId, startDate, stopDate);
          fetched.answers.set(call.key, counted.answer);
          fetched.calls += counted.calls;
          return;
        }
        const answer = (await session.call(call.operationId, { productId: call.productId, body: call.request })) as {
          result?: unknown;
        };
        fetched.answers.set(call.key, answer.result);
        fetched.calls++;
      } catch (e) {
        const error = e as Error;
        if (isSignInFault(error)) throw error;
        fetched.failed.set(call.key, { reason: `${error.name}: ${error.message}`, lasting: isLasting(error) });
      }
    });
  });
  return fetched;
}

/** Faults of the session itself: every call would fail alike, so the run fails once, with the one cause. */
const isSignInFault = (e: Error): boolean =>
  e instanceof AuthenticationError || e instanceof OriginRejectedError || e instanceof SessionLimitError;

const isLasting = (e: Error): boolean =>
  e instanceof BadRequestError ||
  e instanceof NotFoundError ||
  e instanceof FeatureNotEnabledError ||
  e instanceof PermissionError;
