/**
 * `pulse emulator`: starts the emulator until interrupted. Prints where it listens and how to call it, never the
 * password. Invalid options fail before anything starts, naming the option.
 */
import { CONTRACT_PATHS } from '../../emulator/http/contract-routes.ts';
import { startEmulator } from '../../emulator/index.ts';
import { DEFAULTS, EmulatorConfigError, type EmulatorOptions } from '../../emulator/options.ts';
import { exitCodesHelp } from './exit-codes.ts';
import { faultsOption } from './faults-option.ts';
import { type CliIo, EXIT, parseFlags, UsageError } from './io.ts';

export const CLI_DEFAULT_PORT = 8787;
export const CLI_DEFAULT_STORAGE_PORT = 8788;

export const EMULATOR_HELP = `Usage: pulse emulator [options]

Runs the Reporting Service emulator on 127.0.0.1 until Ctrl-C.

Options:
  --port P             service port (default ${CLI_DEFAULT_PORT}; 0 = any free port)
  --storage-port P2    signed-download storage port (default ${CLI_DEFAULT_STORAGE_PORT}; 0 = any free port)
  --seed N             data set seed (default ${DEFAULTS.seed}); the same seed gives the same data
  --clients N          clients of the first product (default ${DEFAULTS.clients}; others get a share)
  --today YYYY-MM-DD   the data set's today (default: the real UTC date)
  --origin URL         the one allowed Origin (default ${DEFAULTS.origin})
  --header-prefix P    prefix of header and cookie names (default ${DEFAULTS.headerPrefix})
  --user U             sign-in user (default $PULSE_EMULATOR_USER or ${DEFAULTS.user})
  --password W         sign-in password (default $PULSE_EMULATOR_PASSWORD or ${DEFAULTS.password})
  --faults FILE        fault-injection profile (JSON)
  --data-dir DIR       persist license registry changes here
  --registry-keys N    at least N keys in each license registry (default: about clients/4; e.g. 1000000)
  --product ID=NAME    also serve this product, with a data set of its own (repeatable)
  -h, --help           show this help

${exitCodesHelp({
  0: 'stopped with Ctrl-C (or SIGTERM)',
  1: 'the emulator failed',
  2: 'an invalid option, or the port in use: nothing was started',
})}
`;

function intOption(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new UsageError(`--${name}: expected a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

/** `--product ID=NAME` (or `ID` alone): checked with the other options when the emulator starts. */
function productOptions(values: string[] | undefined): EmulatorOptions['products'] {
  return values?.map((v) => {
    const [productId = '', ...name] = v.split('=');
    return { productId, ...(name.length > 0 ? { productName: name.join('=') } : {}) };
  });
}

export function emulatorOptionsFromArgs(args: string[], env: CliIo['env']): EmulatorOptions | 'help' {
  const { values } = parseFlags('emulator', args, {
    port: { type: 'string' },
    'storage-port': { type: 'string' },
    seed: { type: 'string' },
    clients: { type: 'string' },
    today: { type: 'string' },
    origin: { type: 'string' },
    'header-prefix': { type: 'string' },
    user: { type: 'string' },
    password: { type: 'string' },
    faults: { type: 'string' },
    'data-dir': { type: 'string' },
    'registry-keys': { type: 'string' },
    product: { type: 'string', multiple: true },
    help: { type: 'boolean', short: 'h' },
  });
  if (values.help) return 'help';
  const str = (k: Exclude<keyof typeof values, 'help' | 'product'>) => values[k];
  const faults = faultsOption(str('faults') || undefined);
  const opts: EmulatorOptions = {
    port: intOption('port', str('port')) ?? CLI_DEFAULT_PORT,
    storagePort: intOption('storage-port', str('storage-port')) ?? CLI_DEFAULT_STORAGE_PORT,
  };
  const set = <K extends keyof EmulatorOptions>(k: K, v: EmulatorOptions[K] | undefined) => {
    if (v !== undefined) opts[k] = v;
  };
  set('seed', intOption('seed', str('seed')));
  set('clients', intOption('clients', str('clients')));
  set('today', str('today'));
  set('origin', str('origin'));
  set('headerPrefix', str('header-prefix'));
  set('user', str('user') ?? env.PULSE_EMULATOR_USER);
  set('password', str('password') ?? env.PULSE_EMULATOR_PASSWORD);
  set('faults', faults);
  set('dataDir', str('data-dir'));
  set('registryKeys', intOption('registry-keys', str('registry-keys')));
  set('products', productOptions(values.product));
  return opts;
}

export async function emulatorCommand(args: string[], io: CliIo, opts: { hint?: boolean } = {}): Promise<number> {
  const options = emulatorOptionsFromArgs(args, io.env);
  if (options === 'help') {
    io.stdout.write(EMULATOR_HELP);
    return EXIT.ok;
  }
  let emu: Awaited<ReturnType<typeof startEmulator>>;
  try {
    emu = await startEmulator(options);
  } catch (e) {
    if (e instanceof EmulatorConfigError) throw new UsageError(e.message);
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE')
      throw new UsageError(`${(e as Error).message}: pick another --port/--storage-port (0 = any free port)`);
    throw e;
  }
  const p = emu.headerPrefix;
  io.stdout.write(
    [
      `emulator listening on ${emu.baseUrl}`,
      `storage listening on ${emu.storageUrl}`,
      `interface document ${emu.baseUrl}${CONTRACT_PATHS.document}  reference page ${emu.baseUrl}${CONTRACT_PATHS.page}`,
      `origin ${emu.origin}  user ${emu.credentials.userName}  header prefix ${p}`,
      ...emu.products.map(
        (x) => `product ${x.productId}  ${x.productName}  ${x.clients} clients${x.rawDataExport ? '  raw export' : ''}`,
      ),
      '',
    ].join('\n'),
  );
  if (opts.hint) {
    io.stdout.write(
      [
        'Try it:',
        `  curl -si -c jar -H 'Origin: ${emu.origin}' ${emu.baseUrl}/v3/request-csrf`,
        `  curl -si -b jar -c jar -H 'Origin: ${emu.origin}' -H 'Content-Type: application/json' \\`,
        `       -d '{"userName":"${emu.credentials.userName}","password":"…"}' ${emu.baseUrl}/v3/auth/web`,
        `  curl -s -b jar -H 'Origin: ${emu.origin}' ${emu.baseUrl}/v3/meta/productProperties`,
        'Press Ctrl-C to stop.',
        '',
      ].join('\n'),
    );
  }
  await new Promise<void>((resolve) => {
    const stop = () => resolve();
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  await emu.close();
  return EXIT.ok;
}
