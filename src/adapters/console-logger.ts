/**
 * The Logger port as JSON lines (the shape of AWS Lambda Powertools' logger: level, message, timestamp, service,
 * then the data's fields), one object per line, so CloudWatch Logs Insights can query every field.
 * Every line goes through a redaction pass: the value of any key that looks like a credential is replaced, at any
 * depth, before anything is written. Lines go to stderr by default, keeping stdout for a command's `--json` result.
 */
import { type Clock, systemClock } from '../ports/clock.ts';
import type { Logger } from '../ports/logger.ts';

export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export const REDACTED = '[redacted]';
const SECRET_KEY = /password|secret|token|cookie|authorization/i;
const RESERVED = new Set(['level', 'message', 'timestamp', 'service']);
const MAX_DEPTH = 8;

export interface ConsoleLoggerOptions {
  service: string;
  /** Lines below this level are dropped. @default 'info' */
  level?: LogLevel;
  /** Receives each line (without the newline). @default a write to stderr */
  write?: (line: string) => void;
  clock?: Clock;
  /** Fields added to every line, e.g. `{ digestId }` (redacted like the rest). */
  context?: Record<string, unknown>;
}

/** Parses a level name such as `$LOG_LEVEL`, case-insensitively; undefined for anything else. */
export function parseLogLevel(value: string | undefined): LogLevel | undefined {
  const v = value?.toLowerCase();
  return LOG_LEVELS.find((l) => l === v);
}

/** A copy of `value` with credential-like keys replaced by "[redacted]"; errors become `{ name, message }`. */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (typeof value !== 'object' || value === null) return value;
  if (value instanceof Date) return value.toISOString();
  if (seen.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[truncated]';
  seen.add(value);
  try {
    if (value instanceof Error) return { name: value.name, message: value.message };
    if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = SECRET_KEY.test(k) ? REDACTED : redact(v, depth + 1, seen);
    return out;
  } finally {
    seen.delete(value); // the same object twice side by side is not a cycle
  }
}

export class ConsoleLogger implements Logger {
  readonly #service: string;
  readonly #minLevel: number;
  readonly #write: (line: string) => void;
  readonly #clock: Clock;
  readonly #context: Record<string, unknown>;

  constructor(opts: ConsoleLoggerOptions) {
    this.#service = opts.service;
    this.#minLevel = LOG_LEVELS.indexOf(opts.level ?? 'info');
    this.#write = opts.write ?? ((line) => process.stderr.write(`${line}\n`));
    this.#clock = opts.clock ?? systemClock;
    this.#context = opts.context ?? {};
  }

  debug(message: string, data?: Record<string, unknown>): void {
    this.#log('debug', message, data);
  }
  info(message: string, data?: Record<string, unknown>): void {
    this.#log('info', message, data);
  }
  warn(message: string, data?: Record<string, unknown>): void {
    this.#log('warn', message, data);
  }
  error(message: string, data?: Record<string, unknown>): void {
    this.#log('error', message, data);
  }

  /** A logger with more fields on every line. */
  child(context: Record<string, unknown>): ConsoleLogger {
    return new ConsoleLogger({
      service: this.#service,
      level: LOG_LEVELS[this.#minLevel]!,
      write: this.#write,
      clock: this.#clock,
      context: { ...this.#context, ...context },
    });
  }

  #log(level: LogLevel, message: string, data: Record<string, unknown> | undefined): void {
    if (LOG_LEVELS.indexOf(level) < this.#minLevel) return;
    const line: Record<string, unknown> = {
      level: level.toUpperCase(),
      message,
      timestamp: this.#clock.now().toISOString(),
      service: this.#service,
    };
    const fields = redact({ ...this.#context, ...data }) as Record<string, unknown>;
    // A data field named like a standard one must not overwrite it.
    for (const [k, v] of Object.entries(fields)) line[RESERVED.has(k) ? `data.${k}` : k] = v;
    this.#write(JSON.stringify(line));
  }
}
