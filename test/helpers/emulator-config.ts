/** The smallest Pulse config that points at a test emulator, as raw JSON (for a config file) or a signed-in client. */
import type { Emulator } from '../../emulator/index.ts';
import { ConsoleLogger } from '../../src/adapters/console-logger.ts';
import { reportingClientFor } from '../../src/app/service-client.ts';
import type { ReportingClient } from '../../src/client/index.ts';
import { parseConfig } from '../../src/config/load.ts';

/** `service` (credentials from PULSE_USER / PULSE_PASSWORD), the emulator's first product, a mail sender. */
export const rawConfigFor = (emu: Emulator): Record<string, unknown> => ({
  service: { baseUrl: emu.baseUrl, origin: emu.origin, headerPrefix: emu.headerPrefix, credentials: { source: 'env' } },
  products: [{ id: emu.products[0]!.productId }],
  mail: { from: 'pulse@example.com' },
});

/** Pulse's own client of `emu`, signed in with its credentials; logs nothing below errors. */
export async function signedInClient(emu: Emulator): Promise<ReportingClient> {
  const logger = new ConsoleLogger({ service: 'test', level: 'error', write: () => undefined });
  const client = reportingClientFor(parseConfig(rawConfigFor(emu)).service, () => emu.credentials, logger);
  await client.signIn();
  return client;
}
