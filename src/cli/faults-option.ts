/**
 * `--faults FILE`: an emulator fault profile (emulator/README.md "Fault injection"), read and validated before anything starts,
 * for `pulse emulator` and for the in-process emulator of `--local` job runs, so a fault run can be replayed. A bad
 * file is a usage error naming it.
 */
import { type FaultProfile, FaultProfileError, loadFaultProfile } from '../../emulator/faults.ts';
import { UsageError } from './io.ts';

export function faultsOption(file: string | undefined): FaultProfile | undefined {
  if (file === undefined) return undefined;
  try {
    return loadFaultProfile(file);
  } catch (e) {
    if (!(e instanceof FaultProfileError)) throw e;
    // Read and JSON errors name the file already; field errors (`rules[0].x: …`) get it in front.
    const problem = e.message.replace(/^faults: /, '');
    throw new UsageError(`--faults: ${problem.includes(file) ? problem : `${file}: ${problem}`}`);
  }
}
