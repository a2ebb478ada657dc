/**
 * GramJS's own logging, routed into pino. GramJS also prints whole errors with `console.error`
 * whenever its logger "can send" at error level (connect failures, reconnects, handler errors);
 * this logger answers `canSend` with false, so none of that reaches the console. Errors GramJS
 * hands to `client.onError` are ours to report (see account-link.ts).
 *
 * GramJS's messages go to pino at debug: during an outage it logs several lines per attempt
 * ("WebSocket connection failed attempt: 1", "Disconnecting..."); the connection code logs one
 * clean line per attempt and state change instead.
 */
import type { Logger as PinoLogger } from "pino";
import { Logger, LogLevel } from "telegram/extensions/Logger.js";

export class GramJsPinoLogger extends Logger {
  constructor(private readonly pino: PinoLogger) {
    super(LogLevel.DEBUG);
  }

  /** Never true: GramJS guards its `console.error(err)` calls with this. */
  override canSend(_level: LogLevel): boolean {
    return false;
  }

  override _log(level: LogLevel, message: string): void {
    this.log(level, message);
  }

  override log(level: LogLevel, message: string): void {
    if (this.pino.isLevelEnabled("debug"))
      this.pino.debug({ component: "gramjs", gramjsLevel: level }, message);
  }
}
