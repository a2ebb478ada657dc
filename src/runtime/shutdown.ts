/**
 * Shutdown on SIGINT / SIGTERM / SIGHUP: the first signal asks for a graceful stop (an
 * AbortSignal the whole start path watches, connecting included); a second one exits at once.
 * SIGHUP is a terminal's hang-up (the ssh session or the terminal window closed): node's
 * default would end the process on the spot, mid-write, leaving its session lock behind.
 *
 * What the operator started may not be this process: `npm start` runs it under npm (and, unless
 * the script `exec`s, under a shell that dies of the SIGTERM npm forwards without passing it
 * on). So the process also stops gracefully when the process that started it goes away (its
 * parent pid changes): it never lingers as an orphan holding the session lock.
 */
import type { Logger } from "pino";

/** The signals that stop the process. */
type StopSignal = "SIGINT" | "SIGTERM" | "SIGHUP";

/** Where signals come from (`process`, or an EventEmitter in tests). */
export interface SignalSource {
  on(event: StopSignal, listener: () => void): unknown;
  removeListener(event: StopSignal, listener: () => void): unknown;
}

/** Exit status of a second signal: 128 + the signal's number, as a shell reports a process it ended. */
const EXIT_STATUS: Record<StopSignal, number> = { SIGHUP: 129, SIGINT: 130, SIGTERM: 143 };

export interface ShutdownOptions {
  readonly logger: Logger;
  readonly source?: SignalSource;
  /** How to exit at once on the second signal (default process.exit). */
  readonly exit?: (code: number) => void;
  /** Also stop when this resolves (tests, embedding). */
  readonly until?: Promise<unknown>;
  /**
   * Stop when the parent process goes away (default: when `source` is `process`). `ppid` reads
   * the current parent (default `process.ppid`); checked every `parentCheckMs` (default 1 s).
   */
  readonly watchParent?: boolean;
  readonly ppid?: () => number;
  readonly parentCheckMs?: number;
}

export interface Shutdown {
  /** Aborts on the first signal (or when `until` resolves). */
  readonly signal: AbortSignal;
  /** Stop listening for signals. */
  dispose(): void;
}

export function listenForShutdown(o: ShutdownOptions): Shutdown {
  const source = o.source ?? process;
  const exit = o.exit ?? ((code: number) => process.exit(code));
  const controller = new AbortController();
  const handlers = (["SIGINT", "SIGTERM", "SIGHUP"] as const).map((name) => {
    const handler = () => {
      if (!controller.signal.aborted) {
        o.logger.info(
          { component: "runtime", signal: name },
          "shutting down; send the signal again to exit at once",
        );
        controller.abort();
        return;
      }
      o.logger.warn({ component: "runtime", signal: name }, "second signal: exiting at once");
      exit(EXIT_STATUS[name]);
    };
    source.on(name, handler);
    return [name, handler] as const;
  });
  void o.until?.then(() => controller.abort());
  let parentTimer: NodeJS.Timeout | undefined;
  if (o.watchParent ?? source === process) {
    const ppid = o.ppid ?? (() => process.ppid);
    const parent = ppid();
    parentTimer = setInterval(() => {
      if (controller.signal.aborted || ppid() === parent) return;
      clearInterval(parentTimer);
      o.logger.warn(
        { component: "runtime", parentPid: parent },
        `the process that started this one (pid ${parent}) is gone; shutting down`,
      );
      controller.abort();
    }, o.parentCheckMs ?? 1000);
    parentTimer.unref();
  }
  return {
    signal: controller.signal,
    dispose: () => {
      clearInterval(parentTimer);
      for (const [name, handler] of handlers) source.removeListener(name, handler);
    },
  };
}

/**
 * Keep the process up until the returned function is called. The runtime's timers are unref'd
 * (a pending tick must not keep a finished process alive), so while Telegram refuses
 * connections nothing else would hold the event loop: node would end with status 0 in the
 * middle of a backoff pause.
 */
export function holdProcessOpen(): () => void {
  const handle = setInterval(() => {}, 2 ** 31 - 1);
  return () => clearInterval(handle);
}
