/** Logging: one pino logger for the process, a child per call (src/agent/call-log.ts). */
export { createLogger, parseLogLevel, logLevels, defaults as loggerDefaults, type Logger, type LoggerOptions, type LogLevel } from './logger.js';
