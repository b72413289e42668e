import { InvalidArgumentError, Option } from 'commander';
import { logLevels, type LogLevel } from '../logging/index.js';

export function parsePort(value: string): number {
  const port = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535.');
  }
  return port;
}

export function parsePositiveNumber(value: string): number {
  const number = value.trim() === '' ? NaN : Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('expected a positive number.');
  return number;
}

export function parsePositiveInteger(value: string): number {
  const number = value.trim() === '' ? NaN : Number(value);
  if (!Number.isInteger(number) || number <= 0) throw new InvalidArgumentError('expected a whole number above 0.');
  return number;
}

/** A parser for a number from `min` to `max` inclusive (e.g. a speaking rate): never NaN. */
export function parseNumberBetween(min: number, max: number): (value: string) => number {
  return (value) => {
    const number = Number(value);
    if (value.trim() === '' || !Number.isFinite(number) || number < min || number > max) throw new InvalidArgumentError(`expected a number from ${min} to ${max}.`);
    return number;
  };
}

/** The `--log-level` option every long-running command takes. */
export function logLevelOption(fallback: LogLevel): Option {
  return new Option('--log-level <level>', 'log level (logs are JSON lines on stderr, readable ones on a terminal)').choices(logLevels).default(fallback);
}
