import { pino, type DestinationStream, type Level, type Logger } from 'pino';
import pretty from 'pino-pretty';

export type { Logger };
export type LogLevel = Level | 'silent';
export const logLevels: readonly LogLevel[] = ['silent', 'fatal', 'error', 'warn', 'info', 'debug', 'trace'];

export interface LoggerOptions {
  level: LogLevel;
  /** Readable lines (pino-pretty) instead of JSON; default: when the output is a terminal. */
  pretty: boolean;
  /** File descriptor written to; default stderr, so a command's stdout stays its output. */
  fd: number;
  /** Written instead of `fd` (tests). */
  destination?: DestinationStream;
}

export const defaults: LoggerOptions = { level: 'info', pretty: Boolean(process.stderr.isTTY), fd: 2 };

/** Shoal's logger: pino JSON lines, or pino-pretty's readable ones on a terminal. */
export function createLogger(options: Partial<LoggerOptions> = {}): Logger {
  const o = { ...defaults, ...options };
  const destination = o.destination ?? (o.pretty ? pretty({ destination: o.fd, colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname' }) : pino.destination({ fd: o.fd, sync: true }));
  return pino({ name: 'shoal', level: o.level }, destination);
}

/** A `--log-level` value, checked; the error names the accepted ones. */
export function parseLogLevel(value: string): LogLevel {
  if ((logLevels as readonly string[]).includes(value)) return value as LogLevel;
  throw new RangeError(`log level must be one of ${logLevels.join(', ')}; got "${value}"`);
}
