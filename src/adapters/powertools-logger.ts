/**
 * The Logger port over AWS Lambda Powertools' Logger, for the functions: one JSON object per line with Powertools'
 * keys (level, message, timestamp, service, cold_start, function_name, function_request_id, xray_trace_id, …), then
 * the data's fields. The redaction is console-logger.ts's: a log formatter replaces the value of any credential-like
 * key, at any depth, in every line's own fields (data, appended keys) before Powertools prints it.
 */
import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Logger } from '../ports/logger.ts';
import { type LogLevel, parseLogLevel, redact } from './console-logger.ts';

/** The part of the Lambda context the logger reads (`context` of `handler(event, context)`). */
export interface LambdaContext {
  functionName: string;
  functionVersion: string;
  invokedFunctionArn: string;
  memoryLimitInMB: string;
  awsRequestId: string;
  /** What is left of the invocation (the Lambda runtime's context has it; a test's may not). */
  getRemainingTimeInMillis?: () => number;
}

/** Keys Powertools owns on every line: a data field with such a name is kept as `data.<name>`, not dropped. */
const RESERVED = new Set(['level', 'message', 'timestamp', 'service', 'sampling_rate', 'cold_start', 'xray_trace_id']);

/**
 * Powertools' standard keys (its PowertoolsLogFormatter, which the package does not export), then every field a
 * caller gave, through console-logger.ts's redaction.
 */
export class RedactingLogFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, additional: LogAttributes): LogItem {
    const context = attributes.lambdaContext;
    return new LogItem({
      attributes: {
        level: attributes.logLevel,
        message: attributes.message,
        timestamp: this.formatTimestamp(attributes.timestamp),
        service: attributes.serviceName,
        cold_start: context?.coldStart,
        function_arn: context?.invokedFunctionArn,
        function_memory_size: context?.memoryLimitInMB,
        function_name: context?.functionName,
        function_request_id: context?.awsRequestId,
        sampling_rate: attributes.sampleRateValue,
        xray_trace_id: attributes.xRayTraceId,
      },
    }).addAttributes(redact(additional) as LogAttributes);
  }
}

export interface PowertoolsLoggerOptions {
  service: string;
  /** @default `$POWERTOOLS_LOG_LEVEL`, else `$LOG_LEVEL`, else info */
  level?: LogLevel | undefined;
}

/** The level the environment names: `POWERTOOLS_LOG_LEVEL` first (Powertools' own), then `LOG_LEVEL`. */
export function logLevelFromEnv(env: Record<string, string | undefined>): LogLevel | undefined {
  return parseLogLevel(env.POWERTOOLS_LOG_LEVEL) ?? parseLogLevel(env.LOG_LEVEL);
}

export class PowertoolsLoggerAdapter implements Logger {
  readonly powertools: PowertoolsLogger;

  constructor(opts: PowertoolsLoggerOptions) {
    this.powertools = new PowertoolsLogger({
      serviceName: opts.service,
      logLevel: (opts.level ?? 'info').toUpperCase() as 'INFO',
      logFormatter: new RedactingLogFormatter(),
    });
  }

  /** The invocation's request id, function and cold start on every following line. */
  addContext(context: LambdaContext): void {
    this.powertools.addContext(context as Parameters<PowertoolsLogger['addContext']>[0]);
  }

  debug(message: string, data?: Record<string, unknown>): void {
    this.powertools.debug(message, fields(data));
  }
  info(message: string, data?: Record<string, unknown>): void {
    this.powertools.info(message, fields(data));
  }
  warn(message: string, data?: Record<string, unknown>): void {
    this.powertools.warn(message, fields(data));
  }
  error(message: string, data?: Record<string, unknown>): void {
    this.powertools.error(message, fields(data));
  }
}

/** The data as Powertools' extra input: a field named like a standard key is renamed (Powertools drops it). */
function fields(data: Record<string, unknown> | undefined): LogAttributes {
  const out: LogAttributes = {};
  for (const [k, v] of Object.entries(data ?? {})) out[RESERVED.has(k) ? `data.${k}` : k] = v as LogAttributes[string];
  return out;
}
