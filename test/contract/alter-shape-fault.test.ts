/**
 * The `alterShape` fault (emulator/faults.ts): a profile that makes chosen answers leave the documented shape, for
 * showing that `pulse doctor --contract` names each change. Validated like every fault field; applied to the JSON
 * answers of its operations only, within `after` and `times`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { alterShape, FaultProfileError, parseFaultProfile } from '../../emulator/faults.ts';
import type { Emulator } from '../../emulator/index.ts';
import { signedIn, startTestEmulator } from '../helpers/emulator-session.ts';

describe('alterShape in a fault profile', () => {
  it.each([
    [{ drop: 1 }, 'rules[0].alterShape.drop: must be a name path'],
    [
      { rename: 'a.b' },
      'rules[0].alterShape: must be {"drop": PATH}, {"rename": PATH, "to": NAME} or {"retype": PATH}',
    ],
    [{ rename: 'a', to: 'b.c' }, 'rules[0].alterShape.to: must be a name path'],
    [{ drop: 'a', retype: 'b' }, 'rules[0].alterShape: must be'],
    ['drop', 'rules[0].alterShape: must be'],
  ])('refuses %j, naming the field', (alteration, message) => {
    expect(() => parseFaultProfile({ rules: [{ alterShape: alteration }] })).toThrow(FaultProfileError);
    expect(() => parseFaultProfile({ rules: [{ alterShape: alteration }] })).toThrow(message);
  });

  it('drops, renames and retypes at a dotted path, * standing for every item or member; the input stays as it was', () => {
    const body = {
      result: [
        { bin: 1, n: 'x' },
        { bin: 2, n: 'y' },
      ],
      totals: { a: 1, b: { c: true } },
    };
    const before = structuredClone(body);
    expect(alterShape(body, { drop: 'result.*.bin' })).toEqual({ ...body, result: [{ n: 'x' }, { n: 'y' }] });
    expect(alterShape(body, { rename: 'totals.a', to: 'A' })).toEqual({ ...body, totals: { A: 1, b: { c: true } } });
    expect(alterShape(body, { retype: 'totals.*' })).toEqual({ ...body, totals: { a: '1', b: 0 } });
    expect(alterShape(body, { drop: 'nothing.here' })).toEqual(body);
    expect(body).toEqual(before);
  });
});

describe('an emulator with an alterShape profile', () => {
  let emu: Emulator;
  beforeAll(async () => {
    emu = await startTestEmulator();
  });
  afterAll(() => emu.close());

  it("alters only its operations' answers, after `after` and at most `times` times, serialized answers too", async () => {
    emu.faults.set({
      rules: [
        { operations: ['signIn'], alterShape: { drop: 'account.email' } },
        { operations: ['dateRangeReport'], after: 1, times: 1, alterShape: { rename: 'result', to: 'results' } },
      ],
    });
    try {
      const wire = await signedIn(emu);
      expect(wire.cookies.size).toBe(2);
      const signIn = await wire.signIn();
      expect(signIn.json.account.email).toBeUndefined();
      expect(signIn.json.account.name).toBe('Ada');
      const range = { startDate: '2026-10-01', stopDate: '2026-10-31', clientStatus: ['active'] };
      const keys = [];
      for (let i = 0; i < 3; i++)
        keys.push(Object.keys((await wire.post('/v3/reporting/generic/dateRange', range)).json));
      expect(keys).toEqual([['result'], ['results'], ['result']]);
      expect((await wire.get('/v3/event-tracking')).json.result.length).toBeGreaterThan(0);
    } finally {
      emu.faults.clear();
    }
  });
});
