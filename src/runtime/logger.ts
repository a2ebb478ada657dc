import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

/**
 * Paths pino blanks out wherever they appear in a log object. Secrets should never reach a
 * log call in the first place; this is the second line of defence.
 */
const SECRET_KEYS = [
  "apiHash",
  "apiKey",
  "session",
  "sessionString",
  "stringSession",
  "authKey",
  "password",
  "phoneCode",
  "loginCode",
];
const REDACT = [
  ...SECRET_KEYS,
  ...SECRET_KEYS.map((k) => `*.${k}`),
  "TELEGRAM_API_HASH",
  "GEMINI_API_KEY",
  "OPENAI_API_KEY",
  "*.TELEGRAM_API_HASH",
  "*.GEMINI_API_KEY",
  "*.OPENAI_API_KEY",
  "headers.authorization",
  "*.headers.authorization",
  'headers["x-goog-api-key"]',
  '*.headers["x-goog-api-key"]',
];

export interface LoggerOptions {
  readonly level?: string;
  /** `json` lines, or `pretty` (pino-pretty). Default: pretty when stderr is a terminal. */
  readonly format?: "json" | "pretty";
}

/**
 * The process logger, on stderr (stdout belongs to the sandbox's chat view): JSON lines, or
 * human-readable lines through pino-pretty when stderr is a terminal.
 */
export function createLogger(o: LoggerOptions | string = {}): Logger {
  const { level = process.env.LOG_LEVEL ?? "info", format } = typeof o === "string" ? { level: o } : o;
  const options = { level, redact: { paths: REDACT, censor: "[redacted]" } };
  const usePretty = format ? format === "pretty" : process.stderr.isTTY === true;
  if (!usePretty) return pino(options, pino.destination(2));
  return pino(
    options,
    pretty({
      destination: 2,
      sync: true,
      colorize: process.stderr.isTTY === true,
      translateTime: "SYS:HH:MM:ss.l",
      ignore: "pid,hostname",
    }),
  );
}
