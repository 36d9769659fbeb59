/**
 * The route table: one entry per operation id of operations.md. Families register their handlers here by id;
 * the server matches method + path, so an unknown path or method is a 404 before anything else is looked at.
 */
export interface RouteDef {
  id: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path segments; `{product_id}` marks the product parameter. */
  path: string;
  /** [1] and [2] run without a session. */
  public?: boolean;
  /** Feature required on the product (403 Feature Not Enabled otherwise). */
  feature?: 'rawDataExport';
  /** The product segment may be left out ([4]). */
  optionalProduct?: boolean;
}

export const ROUTES: readonly RouteDef[] = [
  { id: 'requestCsrf', method: 'GET', path: '/v3/request-csrf', public: true },
  { id: 'signIn', method: 'POST', path: '/v3/auth/web', public: true },
  { id: 'logout', method: 'POST', path: '/v3/auth/logout' },
  { id: 'productProperties', method: 'GET', path: '/v3/meta/productProperties/{product_id}', optionalProduct: true },
  { id: 'propertyValues', method: 'POST', path: '/v3/meta/propertyValues/{product_id}' },
  { id: 'listEvents', method: 'GET', path: '/v3/event-tracking/{product_id}' },
  { id: 'dateRangeReport', method: 'POST', path: '/v3/reporting/generic/dateRange/{product_id}' },
  { id: 'currentReport', method: 'POST', path: '/v3/reporting/generic/current/{product_id}' },
  { id: 'usageDistribution', method: 'POST', path: '/v3/reporting/engagement/usageDistribution/{product_id}' },
  { id: 'lifetimeHistogram', method: 'POST', path: '/v3/reporting/eventTracking/lifetime/histogram/{product_id}' },
  { id: 'lifetimeDataTable', method: 'POST', path: '/v3/reporting/eventTracking/lifetime/dataTable/{product_id}' },
  { id: 'basicDataTable', method: 'POST', path: '/v3/reporting/eventTracking/basic/dataTable/{product_id}' },
  { id: 'basicTimeline', method: 'POST', path: '/v3/reporting/eventTracking/basic/timeline/{product_id}' },
  { id: 'advancedFullReport', method: 'POST', path: '/v3/reporting/eventTracking/advanced/fullReport/{product_id}' },
  { id: 'churnAndEngagement', method: 'POST', path: '/v3/reporting/engagement/churnAndEngagement/{product_id}' },
  { id: 'churnHistogramDays', method: 'POST', path: '/v3/reporting/churn/histogram/days/{product_id}' },
  { id: 'churnHistogramRuntime', method: 'POST', path: '/v3/reporting/churn/histogram/runtime/{product_id}' },
  { id: 'churnHistogramSessions', method: 'POST', path: '/v3/reporting/churn/histogram/sessions/{product_id}' },
  {
    id: 'churnLifetimeDataTable',
    method: 'POST',
    path: '/v3/reporting/eventTracking/churn/lifetime/dataTable/{product_id}',
  },
  {
    id: 'churnLifetimeHistogram',
    method: 'POST',
    path: '/v3/reporting/eventTracking/churn/lifetime/histogram/{product_id}',
  },
  { id: 'searchLicenseKeys', method: 'POST', path: '/v3/license-key-registry/{product_id}' },
  { id: 'updateLicenseKeys', method: 'PATCH', path: '/v3/license-key-registry/update/{product_id}' },
  { id: 'insertLicenseKeys', method: 'POST', path: '/v3/license-key-registry/update/{product_id}' },
  { id: 'customEventsLastLines', method: 'POST', path: '/v3/customEventTracking/getLastLines/{product_id}' },
  { id: 'customEventsListFiles', method: 'GET', path: '/v3/customEventTracking/listFiles/{product_id}' },
  { id: 'customEventsDownloadUrl', method: 'POST', path: '/v3/customEventTracking/getDownloadUrl/{product_id}' },
  { id: 'exceptionsLastLines', method: 'POST', path: '/v3/exceptionTracking/getLastLines/{product_id}' },
  { id: 'exceptionsListFiles', method: 'GET', path: '/v3/exceptionTracking/listFiles/{product_id}' },
  { id: 'exceptionsDownloadUrl', method: 'POST', path: '/v3/exceptionTracking/getDownloadUrl/{product_id}' },
  { id: 'clientPropertyList', method: 'POST', path: '/v3/reporting/clientPropertyList/{product_id}' },
  { id: 'exportClientPropertyList', method: 'POST', path: '/v3/export/request/clientPropertyList/{product_id}' },
  {
    id: 'rawEventsListFiles',
    method: 'GET',
    path: '/v3/rawEvents/download/listFiles/{product_id}',
    feature: 'rawDataExport',
  },
  {
    id: 'rawEventsDownloadUrl',
    method: 'POST',
    path: '/v3/rawEvents/download/getDownloadUrl/{product_id}',
    feature: 'rawDataExport',
  },
];

export interface RouteMatch {
  route: RouteDef;
  productId?: string;
}

/** Matches a request; `methodMismatch` tells a known path with the wrong method (still a 404 per §1.3). */
export function matchRoute(method: string, pathname: string): RouteMatch | undefined {
  const parts = pathname.split('/');
  for (const route of ROUTES) {
    if (route.method !== method) continue;
    const pattern = route.path.split('/');
    const tryMatch = (pat: string[]): RouteMatch | undefined => {
      if (pat.length !== parts.length) return undefined;
      let productId: string | undefined;
      for (let k = 0; k < pat.length; k++) {
        if (pat[k] === '{product_id}') {
          const seg = parts[k] ?? '';
          if (seg === '') return undefined;
          try {
            productId = decodeURIComponent(seg);
          } catch {
            return undefined;
          }
        } else if (pat[k] !== parts[k]) return undefined;
      }
      return productId === undefined ? { route } : { route, productId };
    };
    const m = tryMatch(pattern) ?? (route.optionalProduct ? tryMatch(pattern.slice(0, -1)) : undefined);
    if (m) return m;
  }
  return undefined;
}
