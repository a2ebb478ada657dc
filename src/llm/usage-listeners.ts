/**
 * Who is told the tokens of every answered call (the usage table, the caps): one set of listeners
 * per client — the planner's, the grounded look-ups', speech's, the embedders'. A listener's
 * failure (the database refusing the row, say) is logged and never thrown: the call was answered
 * and paid, and what it brought is still used.
 */
import type { Logger } from "pino";
import { errorMessage } from "../base/error-message";
import type { LlmUsage } from "./types";

export class UsageListeners {
  private readonly listeners = new Set<(u: LlmUsage) => void>();

  constructor(protected readonly log: Logger) {}

  /** Be told every answered call's usage. Returns unsubscribe. */
  add(listener: (u: LlmUsage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Whether anyone listens (a usage worth building only then). */
  get any(): boolean {
    return this.listeners.size > 0;
  }

  tell(u: LlmUsage): void {
    for (const l of this.listeners) {
      try {
        l(u);
      } catch (e) {
        this.log.error({ err: errorMessage(e) }, "recording LLM usage failed");
      }
    }
  }
}
