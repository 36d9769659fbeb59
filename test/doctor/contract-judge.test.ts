/**
 * How `pulse doctor --contract` judges recorded answers (src/doctor/contract-check.ts `judge`): answers a live service
 * could send but the emulator's faults do not make — a signed address where the document wants something else, a
 * body that is not JSON, an undocumented status.
 */
import { describe, expect, it } from 'vitest';
import { ResponseShapeError } from '../../src/client/index.ts';
import { judge } from '../../src/doctor/contract-check.ts';
import type { RecordedAnswer } from '../../src/doctor/recording-fetch.ts';

const answer = (path: string, status: number, text: string, contentType = 'application/json'): RecordedAnswer => ({
  method: 'POST',
  path,
  status,
  contentType,
  text,
  truncated: false,
});
const URL_PATH = '/v3/customEventTracking/getDownloadUrl/12345678901';

describe('judge', () => {
  it('never shows what came at a secret-looking member (a signed address, a token)', () => {
    const signed = 'https://storage.example.com/f.zip?expires=1&signature=c2VjcmV0';
    const o = judge(
      'customEventsDownloadUrl',
      [answer(URL_PATH, 200, JSON.stringify({ downloadUrl: [signed] }))],
      undefined,
    );
    expect(o).toMatchObject({ result: 'differs', status: 200 });
    expect(o.differences).toEqual([{ path: 'downloadUrl', expected: 'type string', got: '(a value not shown)' }]);
    expect(JSON.stringify(o)).not.toContain('signature');
  });

  it('names a JSON answer that is not JSON, and a status the document does not list', () => {
    const html = judge('customEventsDownloadUrl', [answer(URL_PATH, 200, '<html>', 'application/json')], undefined);
    expect(html.differences).toEqual([{ path: '(body)', expected: 'JSON', got: 'a body that is not JSON' }]);
    const teapot = judge('customEventsDownloadUrl', [answer(URL_PATH, 418, '{}')], undefined);
    expect(teapot).toMatchObject({ result: 'differs', status: 418 });
    expect(teapot.differences[0]).toMatchObject({ path: '(status)', got: '418' });
  });

  it('ignores answers of other operations, and says when its own never came', () => {
    const o = judge('listEvents', [answer(URL_PATH, 200, '{"downloadUrl":"x"}')], new Error('socket hang up'));
    expect(o).toMatchObject({ result: 'unchecked', detail: 'not checked: the request failed', differences: [] });
  });

  it("counts an answer the document allows but Pulse's client cannot read as a difference (a Pulse bug)", () => {
    const events = { ...answer('/v3/event-tracking/12345678901', 200, '{"result":[]}'), method: 'GET' };
    const error = new ResponseShapeError('response does not match the documented shape at result', {
      operationId: 'listEvents',
      path: 'result',
    });
    expect(judge('listEvents', [events], undefined)).toMatchObject({ result: 'conforms' });
    expect(judge('listEvents', [events], error).differences).toEqual([
      { path: 'result', expected: "what Pulse's client reads", got: error.message },
    ]);
  });
});
