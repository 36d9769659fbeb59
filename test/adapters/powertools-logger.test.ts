/**
 * The functions' logger (src/adapters/powertools-logger.ts): Powertools' JSON lines with the Lambda context, the
 * level from the environment, and console-logger.ts's redaction of credential-like keys at any depth.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { REDACTED } from '../../src/adapters/console-logger.ts';
import { logLevelFromEnv, PowertoolsLoggerAdapter } from '../../src/adapters/powertools-logger.ts';

const context = {
  functionName: 'pulse-digest',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-central-1:123456789012:function:pulse-digest',
  memoryLimitInMB: '512',
  awsRequestId: 'req-1',
};

function capture(): () => Record<string, unknown>[] {
  let out = '';
  // Powertools prints info and debug on stdout, warn and error on stderr.
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((t) => {
      out += String(t);
      return true;
    });
  return () =>
    out
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('PowertoolsLoggerAdapter', () => {
  it('writes JSON lines with the context, the cold start once, the trace id and the data', () => {
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand'); // as Lambda sets it; Powertools reads it for cold_start
    vi.stubEnv('_X_AMZN_TRACE_ID', 'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1');
    const lines = capture();
    const logger = new PowertoolsLoggerAdapter({ service: 'pulse' });
    logger.addContext(context);
    logger.info('first', { digestId: 'exec', message: 'a field named like a standard key' });
    logger.addContext({ ...context, awsRequestId: 'req-2' });
    logger.debug('dropped at info');
    logger.warn('second');
    expect(lines()).toEqual([
      expect.objectContaining({
        level: 'INFO',
        message: 'first',
        service: 'pulse',
        cold_start: true,
        function_name: 'pulse-digest',
        function_request_id: 'req-1',
        xray_trace_id: '1-5759e988-bd862e3fe1be46a994272793',
        digestId: 'exec',
        'data.message': 'a field named like a standard key',
      }),
      expect.objectContaining({ level: 'WARN', message: 'second', cold_start: false, function_request_id: 'req-2' }),
    ]);
  });

  it('redacts passwords, secrets, tokens and cookies at any depth', () => {
    const lines = capture();
    const logger = new PowertoolsLoggerAdapter({ service: 'pulse', level: 'debug' });
    logger.debug('signing in', {
      userName: 'svc-pulse',
      password: 'hunter2',
      request: { headers: { Cookie: 'sid=abc', authorization: 'Bearer t0k' }, sessionToken: 's3' },
      error: Object.assign(new Error('refused'), { password: 'hunter2' }),
    });
    const [line] = lines();
    expect(line).toMatchObject({
      level: 'DEBUG',
      userName: 'svc-pulse',
      password: REDACTED,
      request: { headers: { Cookie: REDACTED, authorization: REDACTED }, sessionToken: REDACTED },
      error: { name: 'Error', message: 'refused' },
    });
    expect(JSON.stringify(line)).not.toMatch(/hunter2|sid=abc|t0k|"s3"/);
  });

  it('takes its level from POWERTOOLS_LOG_LEVEL, else LOG_LEVEL', () => {
    expect(logLevelFromEnv({ LOG_LEVEL: 'WARN' })).toBe('warn');
    expect(logLevelFromEnv({ POWERTOOLS_LOG_LEVEL: 'debug', LOG_LEVEL: 'error' })).toBe('debug');
    expect(logLevelFromEnv({})).toBeUndefined();
  });
});
