/**
 * The account left (or was removed from, or lost) a channel, or is in it again. Gone: its update
 * state is dropped — no retries, no catch-up — with one log line; back: the next update starts it
 * afresh.
 */
import type { Logger } from "pino";
import type { EntityRecord, EntityStore } from "../store/entities";
import type { UpdateTracker } from "../telegram/inbound/update-tracker";

export class ChannelMembership {
  /** Why a channel was found lost (an RPC error), for its one log line. */
  private readonly lostReasons = new Map<string, string>();

  constructor(
    private readonly o: {
      readonly entities: EntityStore;
      readonly tracker: UpdateTracker;
      readonly logger: Logger;
    },
  ) {}

  /** A catch-up found a channel lost (an RPC error): it is marked gone (→ {@link changed}). */
  lost(chatId: string, error: string): void {
    const e = this.o.entities.get(chatId);
    if (!e || e.gone) return;
    this.lostReasons.set(chatId, error);
    this.o.entities.observe({ ...e, gone: true });
  }

  /** The entity store saw the account's membership of a channel change. */
  changed(e: EntityRecord, gone: boolean): void {
    const name = e.title ?? e.peerId;
    if (gone) {
      const reason = this.lostReasons.get(e.peerId);
      this.lostReasons.delete(e.peerId);
      this.o.tracker.drop(e.peerId);
      this.o.logger.warn(
        { component: "updates", chatId: e.peerId, ...(reason ? { rpcError: reason } : {}) },
        `no longer a member of ${name} (${reason ?? "left or removed"}); its updates are not fetched any more`,
      );
    } else {
      this.o.logger.info(
        { component: "updates", chatId: e.peerId },
        `a member of ${name} again; following its updates`,
      );
    }
  }
}
