/**
 * The 33 operations of the Reporting Service interface v3 (docs/interface.md "Operations"): one stable id per operation
 * with its method and path. The client, the emulator's route table and `pulse api` all read this one table.
 */
export interface OperationDef {
  id: string;
  method: 'GET' | 'POST' | 'PATCH';
  /** Path under the base URL; `{product_id}` marks the product parameter. */
  path: string;
  /**
   * Safe to repeat automatically (docs/interface.md "Safe-to-repeat requests": report POSTs are read-only; never
   * repeat logout, license-key writes or the client export).
   */
  retrySafe: boolean;
  /** The path also takes the product as a last segment, `<path>/{product_id}` (`productProperties`). */
  optionalProduct?: boolean;
}

const op = (id: string, method: OperationDef['method'], path: string, retrySafe = true): OperationDef => ({
  id,
  method,
  path,
  retrySafe,
});

export const OPERATIONS = [
  op('requestCsrf', 'GET', '/v3/request-csrf'),
  op('signIn', 'POST', '/v3/auth/web'),
  op('logout', 'POST', '/v3/auth/logout', false),
  { ...op('productProperties', 'GET', '/v3/meta/productProperties'), optionalProduct: true },
  op('propertyValues', 'POST', '/v3/meta/propertyValues/{product_id}'),
  op('listEvents', 'GET', '/v3/event-tracking/{product_id}'),
  op('dateRangeReport', 'POST', '/v3/reporting/generic/dateRange/{product_id}'),
  op('currentReport', 'POST', '/v3/reporting/generic/current/{product_id}'),
  op('usageDistribution', 'POST', '/v3/reporting/engagement/usageDistribution/{product_id}'),
  op('lifetimeHistogram', 'POST', '/v3/reporting/eventTracking/lifetime/histogram/{product_id}'),
  op('lifetimeDataTable', 'POST', '/v3/reporting/eventTracking/lifetime/dataTable/{product_id}'),
  op('basicDataTable', 'POST', '/v3/reporting/eventTracking/basic/dataTable/{product_id}'),
  op('basicTimeline', 'POST', '/v3/reporting/eventTracking/basic/timeline/{product_id}'),
  op('advancedFullReport', 'POST', '/v3/reporting/eventTracking/advanced/fullReport/{product_id}'),
  op('churnAndEngagement', 'POST', '/v3/reporting/engagement/churnAndEngagement/{product_id}'),
  op('churnHistogramDays', 'POST', '/v3/reporting/churn/histogram/days/{product_id}'),
  op('churnHistogramRuntime', 'POST', '/v3/reporting/churn/histogram/runtime/{product_id}'),
  op('churnHistogramSessions', 'POST', '/v3/reporting/churn/histogram/sessions/{product_id}'),
  op('churnLifetimeDataTable', 'POST', '/v3/reporting/eventTracking/churn/lifetime/dataTable/{product_id}'),
  op('churnLifetimeHistogram', 'POST', '/v3/reporting/eventTracking/churn/lifetime/histogram/{product_id}'),
  op('searchLicenseKeys', 'POST', '/v3/license-key-registry/{product_id}'),
  op('updateLicenseKeys', 'PATCH', '/v3/license-key-registry/update/{product_id}', false),
  op('insertLicenseKeys', 'POST', '/v3/license-key-registry/update/{product_id}', false),
  op('customEventsLastLines', 'POST', '/v3/customEventTracking/getLastLines/{product_id}'),
  op('customEventsListFiles', 'GET', '/v3/customEventTracking/listFiles/{product_id}'),
  op('customEventsDownloadUrl', 'POST', '/v3/customEventTracking/getDownloadUrl/{product_id}'),
  op('exceptionsLastLines', 'POST', '/v3/exceptionTracking/getLastLines/{product_id}'),
  op('exceptionsListFiles', 'GET', '/v3/exceptionTracking/listFiles/{product_id}'),
  op('exceptionsDownloadUrl', 'POST', '/v3/exceptionTracking/getDownloadUrl/{product_id}'),
  op('clientPropertyList', 'POST', '/v3/reporting/clientPropertyList/{product_id}'),
  op('exportClientPropertyList', 'POST', '/v3/export/request/clientPropertyList/{product_id}', false),
  op('rawEventsListFiles', 'GET', '/v3/rawEvents/download/listFiles/{product_id}'),
  op('rawEventsDownloadUrl', 'POST', '/v3/rawEvents/download/getDownloadUrl/{product_id}'),
] as const satisfies readonly OperationDef[];

export type OperationId = (typeof OPERATIONS)[number]['id'];

export const OPERATION_BY_ID: ReadonlyMap<string, OperationDef> = new Map(OPERATIONS.map((o) => [o.id, o]));

export function isOperationId(id: string): id is OperationId {
  return OPERATION_BY_ID.has(id);
}

/** True when the operation's path takes a product id. */
export const isProductScoped = (o: OperationDef): boolean => o.path.includes('{product_id}');

/** True when the operation may be called for a product: product-scoped, or with an optional product segment. */
export const acceptsProduct = (o: OperationDef): boolean => isProductScoped(o) || o.optionalProduct === true;
