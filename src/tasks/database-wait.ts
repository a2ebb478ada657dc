import type { Logger } from "pino";
import { errorMessage } from "../base/error-message";
import type { Clock } from "../base/types";
import { dbError, isBusy } from "../store/db";

/**
 * The scheduler's view of a busy or failing database: another process holds the write lock, or
 * the disk refuses writes (full, an I/O error, read only). Nothing starts for a while (doubling,
 * at most 5 s) — each try blocks for SQLite's busy timeout — and a lock is said once per spell
 * (a failing disk is told once per episode by the runtime's storage watch).
 */
export class DatabaseWait {
  /** No task starts before this time (memory). */
  until = 0;
  /** The current retry delay (ms). */
  delayMs = 0;
  /** When the current busy spell began (one warning when it starts, one when it ends). */
  private since: number | undefined;
  /** The spell is another process's lock (warned here), not a failing disk. */
  private lock = false;

  constructor(
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly dbName: () => string,
  ) {}

  /** A write was refused: wait longer, and say so when a lock spell starts. */
  busy(e: unknown): void {
    const now = this.clock.now();
    this.delayMs = Math.min(5_000, Math.max(250, this.delayMs * 2));
    this.until = now + this.delayMs;
    if (this.since !== undefined) return;
    this.since = now;
    this.lock = isBusy(e);
    if (this.lock)
      this.logger.warn(
        { component: "scheduler", file: this.dbName(), err: errorMessage(e) },
        `${this.dbName()} is busy (another process holds its write lock); tasks wait for it`,
      );
  }

  /** A write went through: a busy spell, if any, is over. */
  free(): void {
    if (this.since === undefined) return;
    if (this.lock)
      this.logger.info(
        { component: "scheduler", busyMs: this.clock.now() - this.since },
        "the database is free again; tasks go on",
      );
    this.since = undefined;
    this.delayMs = 0;
    this.until = 0;
  }

  /** An error for a log line; a database error names the file and the remedy. */
  text(e: unknown): string {
    return String((e as { code?: unknown } | undefined)?.code ?? "").startsWith("SQLITE_")
      ? dbError(this.dbName(), e).message
      : errorMessage(e);
  }
}
