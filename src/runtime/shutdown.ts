/**
 * Shutdown on SIGINT / SIGTERM: the first signal asks for a graceful stop (an AbortSignal the
 * whole start path watches, connecting included); a second one exits at once.
 */
import type { Logger } from "pino";

/** Where signals come from (`process`, or an EventEmitter in tests). */
export interface SignalSource {
  on(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
  removeListener(event: "SIGINT" | "SIGTERM", listener: () => void): unknown;
}

export interface ShutdownOptions {
  readonly logger: Logger;
  readonly source?: SignalSource;
  /** How to exit at once on the second signal (default process.exit). */
  readonly exit?: (code: number) => void;
  /** Also stop when this resolves (tests, embedding). */
  readonly until?: Promise<unknown>;
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
  const handlers = (["SIGINT", "SIGTERM"] as const).map((name) => {
    const handler = () => {
      if (!controller.signal.aborted) {
        o.logger.info({ component: "runtime", signal: name }, "shutting down; send the signal again to exit at once");
        controller.abort();
        return;
      }
      o.logger.warn({ component: "runtime", signal: name }, "second signal: exiting at once");
      exit(name === "SIGINT" ? 130 : 143);
    };
    source.on(name, handler);
    return [name, handler] as const;
  });
  void o.until?.then(() => controller.abort());
  return {
    signal: controller.signal,
    dispose: () => {
      for (const [name, handler] of handlers) source.removeListener(name, handler);
    },
  };
}
