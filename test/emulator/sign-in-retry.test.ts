/**
 * A client that knows only the retry rule of docs/interface.md ("Safe-to-repeat requests": on `Cookie Missing`,
 * repeat once) signs in without ever calling request-csrf: the first sign-in is answered Cookie Missing together with
 * the CSRF cookie, and the repeat succeeds. A bare fetch over 127.0.0.1, no helper that knows the flow.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Emulator } from '../../emulator/index.ts';
import { startTestEmulator } from '../helpers/emulator-session.ts';

let emu: Emulator;
beforeAll(async () => {
  emu = await startTestEmulator({ clients: 60 });
});
afterAll(() => emu.close());

/** `name=value` pairs of the Set-Cookie lines, for the next request's Cookie header. */
const cookiePairs = (res: Response) => res.headers.getSetCookie().map((line) => line.split(';')[0]!);

/** POST with the retry rule: on Cookie Missing, take the cookies the answer set and repeat once. */
async function postWithRetryRule(path: string, body: unknown, cookies: string[]) {
  const answers: { status: number; error?: string | undefined; setCookies: string[] }[] = [];
  for (let attempt = 0; attempt < 2; attempt++) {
    const res = await fetch(emu.baseUrl + path, {
      method: 'POST',
      headers: { Origin: emu.origin, 'Content-Type': 'application/json', Cookie: cookies.join('; ') },
      body: JSON.stringify(body),
    });
    const setCookies = cookiePairs(res);
    const json = (await res.json()) as { error?: string };
    answers.push({ status: res.status, error: json.error, setCookies });
    for (const pair of setCookies) {
      const name = pair.slice(0, pair.indexOf('='));
      cookies.splice(0, cookies.length, ...cookies.filter((c) => !c.startsWith(`${name}=`)), pair);
    }
    if (json.error !== 'Cookie Missing') break;
  }
  return answers;
}

describe('sign-in by the retry rule alone', () => {
  it('answers a sign-in without the CSRF cookie with Cookie Missing and the cookie, so the retry signs in', async () => {
    const cookies: string[] = [];
    const answers = await postWithRetryRule('/v3/auth/web', emu.credentials, cookies);
    expect(answers.map((a) => [a.status, a.error])).toEqual([
      [401, 'Cookie Missing'],
      [200, undefined],
    ]);
    expect(answers[0]!.setCookies).toEqual([expect.stringMatching(/^Svc-Csrf=.{32,}/)]);
    expect(answers[1]!.setCookies.some((c) => c.startsWith('Svc-Session-Token='))).toBe(true);

    // The session works: an authenticated read with the cookies the two answers set.
    const res = await fetch(`${emu.baseUrl}/v3/meta/productProperties`, {
      headers: { Origin: emu.origin, Cookie: cookies.join('; ') },
    });
    expect(res.status).toBe(200);
  });

  it('still refuses a CSRF cookie that request-csrf did not issue, and sets none', async () => {
    const answers = await postWithRetryRule('/v3/auth/web', emu.credentials, ['Svc-Csrf=not-issued-by-the-service']);
    expect(answers).toEqual([{ status: 403, error: 'CSRF Mismatch', setCookies: [] }]);
  });
});
