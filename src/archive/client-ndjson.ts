/**
 * The NDJSON of a product's clients (one object per client, `clientId` and the requested properties, values as
 * clientPropertyList sends them), from either source the service offers:
 * - `export` (the default): the client export exportClientPropertyList, one CSV stream converted as it arrives
 *   (client-csv.ts). Few requests, and so little allocated per client that the job's memory stays flat however many
 *   clients there are.
 * - `pages`: the client property list clientPropertyList, 200 clients per request, each record validated and
 *   serialised. Used when no property is requested (the export needs at least one); kept as the evidenced operation
 *   (the export's format is a decision, still open: docs/interface.md "Client export CSV") and for comparison in
 *   bench/client-export.ts.
 */
import type { ClientRecord, ReportingClient } from '../client/index.ts';
import { ClientCsvToNdjson, type ColumnKind } from './client-csv.ts';

export type ClientSource = 'export' | 'pages';

export interface ClientNdjson {
  /** NDJSON in chunks of whole lines; errors (a malformed CSV, a broken stream) reject the iteration. */
  lines: AsyncIterable<Buffer | string>;
  /** Clients written so far: the total once `lines` has ended. */
  count(): number;
}

/** Lines of the pages source are handed on in batches of about this many characters, not one write per client. */
const BATCH_CHARS = 64 * 1024;
/** Properties whose values are lists, sent as JSON text in the CSV. */
const LIST_PROPERTIES = new Set(['lifetimeEventUsage', 'reachOutDeliveries.auto', 'reachOutDeliveries.manual']);

export function clientNdjson(
  client: ReportingClient,
  productId: string,
  properties: readonly string[],
  source: ClientSource = 'export',
): ClientNdjson {
  const columns = properties.filter((p) => p !== 'clientId');
  if (source === 'export' && columns.length > 0) {
    const csv = { rows: 0 };
    return { lines: exported(client, productId, columns as [string, ...string[]], csv), count: () => csv.rows };
  }
  let clients = 0;
  const records = client.allClients(productId, { properties: [...properties] });
  return {
    lines: paged(records, () => {
      clients++;
    }),
    count: () => clients,
  };
}

/** exportClientPropertyList, one buffer of NDJSON per CSV chunk; `progress.rows` follows the rows converted. */
async function* exported(
  client: ReportingClient,
  productId: string,
  properties: [string, ...string[]],
  progress: { rows: number },
): AsyncGenerator<Buffer> {
  const kindOf = await propertyKinds(client);
  const { stream } = await client.exportClientPropertyList(productId, { properties });
  const csv = new ClientCsvToNdjson({ properties, kindOf });
  for await (const chunk of stream) {
    const lines = csv.push(chunk);
    progress.rows = csv.rows;
    if (lines.length > 0) yield lines;
  }
  const rest = csv.end();
  progress.rows = csv.rows;
  if (rest.length > 0) yield rest;
}

/**
 * The JSON type clientPropertyList gives each property, from the property catalogue (productProperties): numbers and
 * booleans by `dataType`, the list properties as lists, everything else (strings, dates, and the hierarchical levels,
 * which the catalogue does not list) as strings. The client asks for the catalogue of the user's current product: the
 * typed properties are the built-in ones, the same in every product, and custom properties are strings.
 */
async function propertyKinds(client: ReportingClient): Promise<(name: string) => ColumnKind> {
  const catalogue = await client.productProperties();
  const kinds = new Map<string, ColumnKind>();
  for (const group of catalogue.result)
    for (const p of group.properties)
      if (p.dataType === 'number' || p.dataType === 'boolean') kinds.set(p.name, p.dataType);
  return (name) => (LIST_PROPERTIES.has(name) ? 'list' : (kinds.get(name) ?? 'string'));
}

/** The pages of clientPropertyList as NDJSON text in batches; `counted` is called once per client. */
async function* paged(records: AsyncIterable<ClientRecord>, counted: () => void): AsyncGenerator<string> {
  let batch = '';
  for await (const c of records) {
    counted();
    batch += `${JSON.stringify(c)}\n`;
    if (batch.length >= BATCH_CHARS) {
      yield batch;
      batch = '';
    }
  }
  if (batch !== '') yield batch;
}
