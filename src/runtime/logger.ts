import pino, { type Logger } from "pino";

/**
 * Paths pino blanks out wherever they appear in a log object. Secrets should never reach a
 * log call in the first place; this is the second line of defence.
 */
const REDACT = [
  "apiHash",
  "apiKey",
  "session",
  "sessionString",
  "password",
  "phoneCode",
  "loginCode",
  "*.apiHash",
  "*.apiKey",
  "*.session",
  "*.sessionString",
  "*.password",
  "*.phoneCode",
  "*.loginCode",
];

/** The process logger: JSON lines on stderr (stdout belongs to the sandbox's chat view). */
export function createLogger(level: string = process.env.LOG_LEVEL ?? "info"): Logger {
  return pino({ level, redact: { paths: REDACT, censor: "[redacted]" } }, pino.destination(2));
}
