/**
 * Is the state database still the one this process opened, and does it take writes? SQLite
 * keeps writing to the file it opened: one deleted or replaced (moved away, a restore copied
 * over it) while the process runs takes every later write with it, silently. So the file's
 * device and inode are taken at open and compared every `intervalMs` (and whenever readiness
 * asks): a difference is one error line saying what to do, and `problem()` names it — /readyz
 * fails until the file is back. `problem()` also names a storage failure that writes meet now
 * (store/db.ts: a full disk, an I/O error), so /readyz fails while it lasts.
 */
import { statSync } from "node:fs";
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { onWriteFailure, writeFailing, type Db, type DatabaseFileError } from "./db";

/** How often the file's identity is checked (a stat). */
const CHECK_EVERY_MS = 10_000;
/**
 * Readiness stays failed this long after the last refused write: on a disk that is nearly full
 * some writes fit and others do not, and /readyz must not flap between them.
 */
const WRITE_FAILURE_GRACE_MS = 30_000;

interface Identity {
  readonly dev: number;
  readonly ino: number;
}

export class DatabaseWatch {
  private readonly opened: Identity | undefined;
  /** What is wrong with the file now (deleted, replaced), if anything. */
  private changed: string | undefined;
  private timer: unknown;
  /** The last storage failure a write met, and when. */
  private lastFailure: { readonly at: number; readonly err: DatabaseFileError } | undefined;
  private readonly offFailure: () => void;

  constructor(
    private readonly o: {
      readonly db: Db;
      readonly clock: Clock;
      readonly logger: Logger;
      readonly intervalMs?: number;
    },
  ) {
    this.opened = identity(o.db.name);
    this.offFailure = onWriteFailure(o.db, () => {
      const err = writeFailing(o.db);
      if (err) this.lastFailure = { at: o.clock.now(), err };
    });
  }

  /** Check every `intervalMs` from now on (the clock's timers are unref'd: this keeps no process alive). */
  start(): void {
    if (this.timer !== undefined || this.opened === undefined) return;
    const tick = () => {
      this.check();
      this.timer = this.o.clock.setTimeout(tick, this.o.intervalMs ?? CHECK_EVERY_MS);
    };
    this.timer = this.o.clock.setTimeout(tick, this.o.intervalMs ?? CHECK_EVERY_MS);
  }

  stop(): void {
    if (this.timer !== undefined) this.o.clock.clearTimeout(this.timer);
    this.timer = undefined;
    this.offFailure();
  }

  /** Compare the file with the one opened; one log line when that changes. */
  check(): void {
    if (this.opened === undefined || !this.o.db.open) return;
    const file = this.o.db.name;
    const now = identity(file);
    const was = this.changed;
    this.changed =
      now === undefined
        ? `${file} was deleted while the program runs: what it writes from now on is lost when it stops`
        : now.dev !== this.opened.dev || now.ino !== this.opened.ino
          ? `${file} was replaced by another file while the program runs (device ${this.opened.dev} inode ${this.opened.ino} became device ${now.dev} inode ${now.ino}): this process still writes to the old one, which nothing can open any more`
          : undefined;
    if (this.changed !== undefined && was === undefined)
      this.o.logger.error(
        { component: "store", file },
        `${this.changed}. Stop it (Ctrl-C), put the database file back (or restore a backup made by npm run backup), then start again`,
      );
    else if (this.changed === undefined && was !== undefined)
      this.o.logger.warn({ component: "store", file }, `${file} is the file this process opened again`);
  }

  /** What is wrong with the database now, for /readyz; undefined when all is well. */
  problem(): string | undefined {
    this.check();
    if (this.changed !== undefined) return this.changed;
    const recent =
      this.lastFailure && this.o.clock.now() - this.lastFailure.at < WRITE_FAILURE_GRACE_MS
        ? this.lastFailure.err
        : undefined;
    const failing = writeFailing(this.o.db) ?? recent;
    return failing ? `${failing.file} refuses writes: ${failing.detail}; ${failing.remedy}` : undefined;
  }
}

function identity(file: string): Identity | undefined {
  try {
    const s = statSync(file);
    return { dev: s.dev, ino: s.ino };
  } catch {
    return undefined;
  }
}
