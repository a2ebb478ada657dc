import type { ReplyContext } from "../types";
import { isKind, type NewTask, type ReceivedItem, type Task } from "./task";

/** How long a received task waits for its reply fetch to report back, at most. */
export const REPLY_WAIT_MS = 10_000;

/** What the received-task rules need from the scheduler's graph. */
export interface ReceivedGraph {
  now(): number;
  /** Open tasks of a chat, oldest first (live objects). */
  tasksOf(chatId: string): readonly Task[];
  add(chatId: string, batch: readonly NewTask[]): Task[];
  cancelPending(chatId: string, reason: string): Task[];
  save(t: Task): void;
  finish(t: Task, status: "done" | "cancelled", reason: string): void;
  transaction(fn: () => void): void;
  kick(): void;
  log(t: Task, event: string, extra: Record<string, unknown>): void;
}

/**
 * The rules of `received` tasks (an addressed message waiting to be planned), apart from the
 * generic graph scheduling: bursts join one planning call, a newer message makes a plan stale,
 * a stale task hands its messages to the newer one, a reply fetch holds the task (bounded).
 */
export class ReceivedRules {
  constructor(
    private readonly g: ReceivedGraph,
    private readonly tickMs: number,
  ) {}

  /**
   * An addressed message arrived. While the chat's `received` task has not started, the message
   * joins it (a burst costs one planning call). Otherwise the chat's unstarted tasks are
   * cancelled — the plan is stale — and a new `received` task is created; a plan still being
   * made for the old one will be dropped. A read mark follows after `readDelayMs`.
   * With `awaitingReply`, the task waits for `attachReply` — but never longer than
   * REPLY_WAIT_MS, so a fetch that never reports back cannot silence the chat.
   */
  enqueue(chatId: string, messageId: number, o: { readDelayMs: number; awaitingReply?: boolean }): void {
    const now = this.g.now();
    const item: ReceivedItem = { messageId, ...(o.awaitingReply ? { awaitingReplyUntil: now + REPLY_WAIT_MS } : {}) };
    const tasks = this.g.tasksOf(chatId);
    const waiting = tasks.find((t): t is Task<"received"> => t.kind === "received" && t.status === "pending");
    const read = tasks.find((t): t is Task<"read"> => t.kind === "read" && t.status === "pending");
    if (waiting) {
      this.g.transaction(() => {
        waiting.payload = { ...waiting.payload, items: [...waiting.payload.items, item] };
        this.g.save(waiting);
        if (read && read.payload.maxId < item.messageId) {
          read.payload = { maxId: item.messageId };
          this.g.save(read);
        }
      });
      this.g.log(waiting, "joined", { messageId: item.messageId });
      this.g.kick();
      return;
    }
    this.g.transaction(() => {
      const cancelled = this.g.cancelPending(chatId, "replanned: a newer message arrived");
      // Messages whose answer was cancelled before it went out are still owed one: the new plan covers them too.
      const owed = new Set<number>();
      for (const t of cancelled) {
        if (isKind(t, "send") || isKind(t, "sticker")) for (const id of t.payload.answers ?? []) if (id !== messageId) owed.add(id);
      }
      const items = [...[...owed].sort((a, b) => a - b).map((id) => ({ messageId: id })), item];
      this.g.add(chatId, [
        // Planning waits for the next tick, so a burst arriving together joins one call.
        { kind: "received", payload: { items }, notBefore: now + this.tickMs },
        { kind: "read", payload: { maxId: item.messageId }, notBefore: now + o.readDelayMs },
      ]);
    });
  }

  /** The reply context of an addressed message has arrived: store it in its task and let it run. */
  attachReply(chatId: string, messageId: number, reply: ReplyContext | undefined): void {
    const task = this.g.tasksOf(chatId).find(
      (t): t is Task<"received"> => isKind(t, "received") && t.payload.items.some((i) => i.messageId === messageId),
    );
    if (!task) return;
    task.payload = {
      ...task.payload,
      items: task.payload.items.map((i) => (i.messageId === messageId ? { messageId, ...(reply ? { reply } : {}) } : i)),
    };
    this.g.save(task);
    this.g.kick();
  }

  /** True while a received task still waits for a reply fetch. */
  awaitingReply(t: Task, now: number): boolean {
    return isKind(t, "received") && t.payload.items.some((i) => (i.awaitingReplyUntil ?? 0) > now);
  }

  /**
   * On load after a restart: the raw message a reply fetch needed died with the old process, so
   * plan without it (the prompt falls back to the stored copy of the replied-to message, if any).
   * Returns true when the task changed.
   */
  forgetReplyFetch(t: Task): boolean {
    if (!isKind(t, "received") || !t.payload.items.some((i) => i.awaitingReplyUntil !== undefined)) return false;
    t.payload = { ...t.payload, items: t.payload.items.map(({ awaitingReplyUntil: _a, ...i }) => i) };
    return true;
  }

  /** A newer `received` task of the same chat, if one is open: this one's plan would be stale. */
  newer(task: Task): Task<"received"> | undefined {
    if (task.kind !== "received") return undefined;
    return this.g.tasksOf(task.chatId).find((t): t is Task<"received"> => t.kind === "received" && t.id > task.id);
  }

  /**
   * Give a stale `received` task's messages (and their reply contexts) to the newer one, which
   * then plans for all of them, and close the stale one.
   */
  handOver(stale: Task<"received">, newer: Task<"received">, status: "done" | "cancelled"): void {
    const known = new Set(newer.payload.items.map((i) => i.messageId));
    const older = stale.payload.items.filter((i) => !known.has(i.messageId));
    newer.payload = { ...newer.payload, items: [...older, ...newer.payload.items].sort((a, b) => a.messageId - b.messageId) };
    this.g.save(newer);
    this.g.finish(stale, status, `superseded by #${newer.id}`);
  }
}
