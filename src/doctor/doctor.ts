/**
 * `pulse doctor`: what a deployment needs, checked from a workstation, one result per check, in dependency order:
 * the Reporting Service (reachable, Origin accepted, sign-in, each configured product with the features the config
 * uses, sign-out), then the AWS resources the config names (aws-checks.ts). A check whose prerequisite failed is
 * skipped, not failed again; a resource the config does not name is skipped. Nothing is written or sent.
 */
import {
  FeatureNotEnabledError,
  NetworkError,
  NotFoundError,
  OriginRejectedError,
  type ReportingClient,
  TimeoutError,
} from '../client/index.ts';
import type { ArchiveKind, PulseConfig } from '../config/schema.ts';
import { type AwsCheckClients, awsChecks } from './aws-checks.ts';
import { type CheckResult, explainedFail, fail, ok, skip, warn } from './check-result.ts';

export type { CheckResult, CheckStatus } from './check-result.ts';

export interface DoctorClients extends AwsCheckClients {
  /** Pulse's client for the configured service, credentials from the configured source. */
  service: ReportingClient;
  /** Where the credentials come from, for the sign-in line (never their value). */
  credentialsSource: string;
}

/** Every check, in order, as each finishes. */
export async function* runDoctor(config: PulseConfig, clients: DoctorClients): AsyncGenerator<CheckResult> {
  yield* serviceChecks(config, clients);
  yield* awsChecks(config, clients);
}

async function* serviceChecks(config: PulseConfig, clients: DoctorClients): AsyncGenerator<CheckResult> {
  const { service } = clients;
  const { baseUrl, origin } = config.service;
  // Checks a failure makes pointless are listed once each as skipped, the products on one line.
  const later = ['origin', 'sign-in', `products ${config.products.map((p) => p.id).join(', ')}`, 'sign-out'];
  // request-csrf is public: any HTTP answer proves the service reachable (DNS, TCP, TLS); a 2xx, the Origin accepted.
  const started = Date.now();
  try {
    await service.call('requestCsrf');
    yield ok('service reachable', `${baseUrl} answered in ${Date.now() - started} ms`);
    yield ok('origin', `${origin} accepted`);
  } catch (e) {
    if (e instanceof NetworkError || e instanceof TimeoutError) {
      yield fail('service reachable', baseUrl, e);
      for (const name of later) yield skip(name, 'not checked: the service is not reachable');
      return;
    }
    yield ok('service reachable', `${baseUrl} answered HTTP ${(e as { status?: number }).status ?? '?'}`);
    yield fail('origin', e instanceof OriginRejectedError ? `${origin} refused` : `${origin} not confirmed`, e);
    for (const name of later.slice(1)) yield skip(name, 'not checked: the service refused the first request');
    return;
  }

  try {
    const signedIn = await service.signIn();
    yield ok('sign-in', `signed in as ${signedIn.account.email} (credentials from ${clients.credentialsSource})`);
  } catch (e) {
    yield fail('sign-in', `credentials from ${clients.credentialsSource}`, e);
    for (const name of later.slice(2)) yield skip(name, 'not checked: not signed in');
    return;
  }
  try {
    for (const product of config.products) yield* productChecks(config, service, product);
  } finally {
    // Sign-out is checked too: a session left open counts against the user's limit of 5 until it idles out.
    try {
      await service.logout();
      yield ok('sign-out', 'session ended');
    } catch (e) {
      yield fail('sign-out', 'the session may stay open until it idles out', e);
    }
  }
}

/** The features of a product the config uses: `licenses` and each archive kind. */
function featuresOf(config: PulseConfig, productId: string): ('licenses' | ArchiveKind)[] {
  const licenses = config.licenses && (config.licenses.productIds ?? [productId]).includes(productId);
  return [...(licenses ? (['licenses'] as const) : []), ...(config.archive?.kinds ?? [])];
}

const FEATURE_CALLS: Record<
  'licenses' | ArchiveKind,
  [what: string, call: (c: ReportingClient, id: string) => unknown]
> = {
  licenses: ['the license key search answers', (c, id) => c.searchLicenseKeys(id, { paging: { limit: 1 } })],
  customEvents: ['the custom event files listing answers', (c, id) => c.customEventsListFiles(id)],
  exceptions: ['the exception files listing answers', (c, id) => c.exceptionsListFiles(id)],
  rawEvents: ['the raw event files listing answers', (c, id) => c.rawEventsListFiles(id)],
  clientData: ['the client property list answers', (c, id) => c.clientPropertyList(id, { properties: [] })],
};

async function* productChecks(
  config: PulseConfig,
  service: ReportingClient,
  product: PulseConfig['products'][number],
): AsyncGenerator<CheckResult> {
  const name = `product ${product.id}`;
  const label = product.name ? `${product.name}: ` : '';
  const features = featuresOf(config, product.id);
  try {
    const events = await service.listEvents(product.id);
    yield ok(name, `${label}accessible (${events.result.length} event categories)`);
  } catch (e) {
    yield e instanceof NotFoundError || e instanceof FeatureNotEnabledError
      ? explainedFail(name, `${label}${e.message}: check products[].id and the user's access to the product`, e)
      : fail(name, product.name ?? product.id, e);
    for (const f of features) yield skip(`${name} ${f}`, 'not checked: the product is not accessible');
    return;
  }
  for (const feature of features) {
    const [what, call] = FEATURE_CALLS[feature];
    try {
      await call(service, product.id);
      yield ok(`${name} ${feature}`, what);
    } catch (e) {
      if (feature === 'rawEvents' && e instanceof FeatureNotEnabledError)
        // The archive records it as "not enabled" and carries on (src/archive/plan.ts): worth knowing, not fatal.
        yield warn(
          `${name} ${feature}`,
          'the product has no raw data export feature: the archive records rawEvents as not enabled',
        );
      else if (e instanceof FeatureNotEnabledError)
        yield explainedFail(`${name} ${feature}`, `${e.message}: remove ${feature} from the config or enable it`, e);
      else yield fail(`${name} ${feature}`, what.replace(' answers', ''), e);
    }
  }
}
