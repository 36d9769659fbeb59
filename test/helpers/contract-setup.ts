/**
 * vitest `setupFiles`: the contract check of test/helpers/contract-watch.ts in every test file. A test during which an
 * emulator answered, or accepted, off the interface document fails with each difference. PULSE_CONTRACT_WATCH=0
 * turns it off (to see a test's own failure first).
 */
import { afterAll, afterEach } from 'vitest';
import { observeExchanges } from '../../emulator/index.ts';
import { describeViolations, record, takeViolations } from './contract-watch.ts';

if (process.env.PULSE_CONTRACT_WATCH !== '0') {
  const stop = observeExchanges(record);
  const assertNone = () => {
    const violations = takeViolations();
    if (violations.length > 0) throw new Error(describeViolations(violations));
  };
  afterEach(assertNone);
  afterAll(() => {
    stop();
    assertNone();
  });
}
