/**
 * Fan-out of new messages: `onMessage` listeners and delivery to attached member accounts.
 */
import { Api } from "telegram";
import { pushedLive } from "./channel-news";
import type { Connection } from "./client-link";
import { dispatchesInFlight, dispatchUpdates } from "./dispatch-updates";
import { newMessageUpdates } from "./new-message-update";
import type { OfflineUpdate, StoredMessage } from "./stored-message";
import { roundTripObject } from "./tl-roundtrip";
import type { TlViews } from "./tl-views";
import type { EmuMessageEvent, EmuUser, PreparedDelivery, UpdateLimits, UpdateShapes } from "./types";
import type { World } from "./world";

/** What the bus needs from the emulator. */
export interface MessageBusDeps {
  readonly world: World;
  readonly views: TlViews;
  /** Attached clients by account id (live view). */
  readonly connections: ReadonlyMap<number, Connection>;
  readonly strictTl: boolean;
  readonly now: () => number;
  readonly shapes: UpdateShapes;
  /** Which supergroups are too big to be pushed (see channel-news.ts). */
  readonly limits: Pick<UpdateLimits, "pushedMembersMax">;
}

/** Tells listeners about new messages and pushes them to the attached clients. */
export class MessageBus {
  private readonly listeners = new Set<(m: EmuMessageEvent) => void>();
  private readonly background = new Set<Promise<void>>();
  private backgroundError: unknown = undefined;

  constructor(private readonly deps: MessageBusDeps) {}

  onMessage(listener: (m: EmuMessageEvent) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  /** Calls the listeners once for `msg`, with the reference account's ids. */
  emit(msg: StoredMessage): void {
    if (this.listeners.size === 0) return;
    const event = this.deps.world.view(msg);
    for (const listener of this.listeners) listener(event);
  }

  /**
   * The updates each attached member account (except `skipAccountId`) should receive: none for a
   * supergroup too big to be pushed (its members fetch it with getChannelDifference).
   */
  prepare(msg: StoredMessage, skipAccountId: number | undefined): PreparedDelivery[] {
    const { world, views } = this.deps;
    const nowMs = this.deps.now();
    const out: PreparedDelivery[] = [];
    if (!pushedLive(msg.chat, this.deps.limits)) return out;
    for (const conn of this.deps.connections.values()) {
      const account = conn.account;
      if (account.id === skipAccountId || !msg.chat.members.has(account.id)) continue;
      // Not in this account's view (e.g. a DM from a user it blocked).
      if (world.idFor(msg, account.id) === undefined) continue;
      out.push({ account, updates: newMessageUpdates(world, views, msg, account, nowMs, this.deps.shapes) });
    }
    return out;
  }

  /** Pushes updates through `account`'s client and awaits its handlers (no-op when not attached). */
  async deliver(account: EmuUser, updates: Api.TypeUpdates): Promise<void> {
    const conn = this.deps.connections.get(account.id);
    // A dead link or a silenced session: the update is lost (getDifference still has it).
    if (!conn || conn.sender.userDisconnected || !conn.linkUp || conn.network.silenced) return;
    // An overflowing queue: one updatesTooLong instead, then nothing until getDifference.
    if (conn.network.overflow === "sent") return;
    if (conn.network.overflow === "armed") {
      conn.network.overflow = "sent";
      updates = new Api.UpdatesTooLong();
    }
    await dispatchUpdates(conn.client, this.deps.strictTl ? roundTripObject(updates) : updates);
  }

  /**
   * `deliver` for an update without pts (updateChat, updateChannel, updateChannelTooLong): when
   * it cannot reach the client now — no client attached, a dead link, a silenced session, an
   * overflowing queue — `keep` is kept for the account's next complete updates.getDifference
   * (Mailbox.offline), as Telegram's difference carries what a session missed.
   */
  async deliverOrKeep(account: EmuUser, updates: Api.TypeUpdates, keep: OfflineUpdate): Promise<void> {
    if (!this.reachable(account.id)) this.deps.world.mailbox(account.id).offline.push(keep);
    await this.deliver(account, updates);
  }

  /**
   * True when a push to the account would reach its client now: a client attached, its link up,
   * the session not silenced, its queue not overflowing.
   */
  reachable(accountId: number): boolean {
    const conn = this.deps.connections.get(accountId);
    return (
      conn !== undefined &&
      !conn.sender.userDisconnected &&
      conn.linkUp &&
      !conn.network.silenced &&
      conn.network.overflow === "off"
    );
  }

  /**
   * A message an account sent: listeners now, other members in the background — after the
   * sender's own answer, like a real server's push. `idle()` waits for these.
   */
  publish(msg: StoredMessage, senderId: number): void {
    this.emit(msg);
    for (const d of this.prepare(msg, senderId)) {
      this.track(new Promise<void>((r) => setImmediate(r)).then(() => this.deliver(d.account, d.updates)));
    }
  }

  /**
   * A server-made message (a topic's service message) to every attached member, the creator's
   * own session included. Each delivery starts synchronously — GramJS dispatches without
   * awaiting — so a running client (its handlers resolved, its own id known) sees it before
   * anything posted after it; `idle()` waits for the handlers.
   */
  pushNow(msg: StoredMessage): void {
    for (const d of this.prepare(msg, undefined)) this.track(this.deliver(d.account, d.updates));
  }

  /** Pushes prepared updates in the background, after the current request's answer. `idle()` waits for it. */
  later(d: PreparedDelivery): void {
    this.track(new Promise<void>((r) => setImmediate(r)).then(() => this.deliver(d.account, d.updates)));
  }

  /**
   * Resolves when background deliveries are done and no handler GramJS started on any attached
   * client is still running (handlers may cause more of both: it waits until everything is
   * quiet); rejects with the first error a background delivery hit.
   */
  async idle(): Promise<void> {
    for (;;) {
      const busy: Promise<unknown>[] = [...this.background];
      for (const conn of this.deps.connections.values()) busy.push(...dispatchesInFlight(conn.client));
      if (busy.length === 0) break;
      await Promise.allSettled(busy);
    }
    const error = this.backgroundError;
    this.backgroundError = undefined;
    if (error !== undefined) throw error;
  }

  private track(p: Promise<void>): void {
    const tracked = p.then(
      () => undefined,
      (e: unknown) => {
        this.backgroundError ??= e;
        process.stderr.write(`[telegram-emulator] background delivery failed: ${String(e)}\n`);
      },
    );
    this.background.add(tracked);
    void tracked.finally(() => this.background.delete(tracked));
  }
}
