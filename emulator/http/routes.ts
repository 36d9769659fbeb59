/**
 * The route table: one entry per operation id of src/api/operations.ts. Families register their handlers here by id;
 * the server matches method + path, so an unknown path or method is a 404 before anything else is looked at.
 */
import { OPERATIONS, type OperationDef, type OperationId } from '../../src/api/operations.ts';

export interface RouteDef extends OperationDef {
  /** `requestCsrf` and `signIn` run without a session. */
  public?: boolean;
  /** Feature required on the product (403 Feature Not Enabled otherwise). */
  feature?: 'rawDataExport';
  /** Changes state (sessions, the registry): not a read, so its body's ignored members are not reported. */
  changes?: boolean;
  // `optionalProduct` (the product segment may be left out, `productProperties`) comes from the operation table.
}

/** Emulator rules on top of the shared operation table (docs/interface.md "Sessions", "File listings and names"). */
const RULES: Partial<Record<OperationId, Omit<RouteDef, keyof OperationDef>>> = {
  requestCsrf: { public: true },
  signIn: { public: true, changes: true },
  logout: { changes: true },
  updateLicenseKeys: { changes: true },
  insertLicenseKeys: { changes: true },
  rawEventsListFiles: { feature: 'rawDataExport' },
  rawEventsDownloadUrl: { feature: 'rawDataExport' },
};

export const ROUTES: readonly RouteDef[] = OPERATIONS.map((o) => ({
  ...o,
  // `productProperties` also accepts `/v3/meta/productProperties/{product_id}`.
  path: o.id === 'productProperties' ? `${o.path}/{product_id}` : o.path,
  ...RULES[o.id],
}));

export interface RouteMatch {
  route: RouteDef;
  productId?: string;
}

/** Matches a request; `methodMismatch` tells a known path with the wrong method (still a 404 `Not Found`). */
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
