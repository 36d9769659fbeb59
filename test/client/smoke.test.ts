import { expect, it } from 'vitest';
import { ReportingClient } from '../../src/client/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

it('smoke', async () => {
  const emu = await startTestEmulator({ clients: 50 });
  const c = new ReportingClient({ baseUrl: emu.baseUrl, origin: emu.origin, credentials: emu.credentials });
  const r = await c.call('signIn');
  expect(r).toHaveProperty('products');
  expect(await c.call('requestCsrf')).toBeUndefined();
  await c.logout();
  await emu.close();
});
