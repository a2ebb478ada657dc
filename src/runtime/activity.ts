/**
 * A persona's live activity, for the operator console's "now" view: plans made or failed,
 * messages sent, reactions and stickers, tasks cancelled or refused by the admission gate (caps
 * included), addressed messages refused on arrival, catch-ups and errors. A bounded ring in
 * memory (the newest {@link ACTIVITY_KEPT}), fed by the scheduler's task ends, the inbound
 * pipeline's refusals (addressed messages only) and the catch-up chain: chatter adds nothing.
 * After a restart it starts from the newest finished tasks in the database (`seed`).
 */
import { CAP_KINDS } from "../policy/caps";
import type { Task } from "../tasks/task";
import { supersededBy } from "../tasks/received-rules";
import type { FinishedTaskRow } from "../tasks/task-store";
import { itemIds, taskWhat } from "../tasks/task-text";

/** How many events are kept. */
const ACTIVITY_KEPT = 500;

type ActivityKind =
  | "plan"
  | "send"
  | "sticker"
  | "reaction"
  | "cancelled"
  | "refusal"
  | "cap"
  | "catch-up"
  | "intention"
  | "error";

/** One thing that happened. `messageId` / `planId` say what it links to. */
export interface ActivityEvent {
  readonly seq: number;
  readonly at: number;
  readonly kind: ActivityKind;
  readonly chatId?: string;
  readonly text: string;
  /** The message it is about (the one sent, reacted to, refused). */
  readonly messageId?: number;
  /** The `received` task of the plan it belongs to, and that plan's number in its chat. */
  readonly planId?: number;
  readonly planNo?: number;
}

const short = (s: string, n = 120) => (s.length > n ? `${s.slice(0, n)}…` : s);

/** What a finished task says in the feed (undefined: nothing worth a line). */
function taskEvent(
  t: {
    readonly id: number;
    readonly chatId: string;
    readonly kind: string;
    readonly payload: Record<string, unknown>;
    readonly error?: string | undefined;
    readonly planId?: number | undefined;
    readonly planNo?: number | undefined;
  },
  status: string,
): Omit<ActivityEvent, "seq" | "at"> | undefined {
  const p = t.payload;
  const base = {
    chatId: t.chatId,
    ...(t.planId !== undefined ? { planId: t.planId } : {}),
    ...(t.planNo !== undefined ? { planNo: t.planNo } : {}),
  };
  if (t.kind === "received") {
    const items = itemIds(p);
    const what = taskWhat(t.kind, p);
    const about = what ? ` ${what}` : "";
    // Handed over to a newer round (done or cancelled): that round's plan is the one to show.
    if (supersededBy(t.error) !== undefined) return undefined;
    const plan = { ...base, planId: t.id, ...(items.length ? { messageId: items[items.length - 1]! } : {}) };
    if (status === "done") return { ...plan, kind: "plan", text: `planned${about}` };
    if (status === "failed")
      return { ...plan, kind: "error", text: `planning failed${about}: ${t.error ?? ""}` };
    return classifyCancel({ ...plan }, `planning cancelled${about}`, t.error);
  }
  const sentId = typeof p.sentId === "number" ? p.sentId : undefined;
  const target = sentId ?? (typeof p.messageId === "number" ? p.messageId : undefined);
  const on = { ...base, ...(target !== undefined ? { messageId: target } : {}) };
  if (status === "failed") return { ...on, kind: "error", text: `${t.kind} failed: ${t.error ?? ""}` };
  if (status === "cancelled") {
    if (t.kind === "typing" || t.kind === "read") return undefined; // follows its send, or nothing to say
    return classifyCancel(on, `${t.kind} cancelled`, t.error);
  }
  if (t.kind === "send") return { ...on, kind: "send", text: `sent: ${short(taskWhat(t.kind, p))}` };
  if (t.kind === "sticker") return { ...on, kind: "sticker", text: `sticker ${taskWhat(t.kind, p)}` };
  if (t.kind === "react") return { ...on, kind: "reaction", text: `reacted ${taskWhat(t.kind, p)}` };
  return undefined;
}

/** The admission gate's refusal of a task for a cap: the scheduler's `not admitted: <cap kind>`. */
const CAP_REFUSAL = new Set<string>(CAP_KINDS.map((k) => `not admitted: ${k}`));

function classifyCancel(
  base: Omit<ActivityEvent, "seq" | "at" | "kind" | "text">,
  what: string,
  reason: string | undefined,
): Omit<ActivityEvent, "seq" | "at"> {
  const cap = reason !== undefined && CAP_REFUSAL.has(reason);
  return { ...base, kind: cap ? "cap" : "cancelled", text: `${what}${reason ? `: ${reason}` : ""}` };
}

export class Activity {
  private readonly ring: ActivityEvent[] = [];
  private seq = 0;
  private readonly errors: ActivityEvent[] = [];
  private readonly listeners = new Set<(e: ActivityEvent) => void>();

  constructor(private readonly now: () => number) {}

  /** Told of every new event (the sandbox prints why a message got no answer); returns the way to stop. */
  listen(fn: (e: ActivityEvent) => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private push(e: Omit<ActivityEvent, "seq" | "at">, at = this.now()): void {
    const event: ActivityEvent = { ...e, seq: ++this.seq, at };
    this.ring.push(event);
    if (this.ring.length > ACTIVITY_KEPT) this.ring.splice(0, this.ring.length - ACTIVITY_KEPT);
    if (event.kind === "error") {
      this.errors.push(event);
      if (this.errors.length > 10) this.errors.shift();
    }
    for (const fn of this.listeners) fn(event);
  }

  /** The newest finished tasks of the database, oldest first (after a restart). */
  seed(rows: readonly FinishedTaskRow[]): void {
    for (const r of rows) {
      let payload: Record<string, unknown> = {};
      try {
        payload = JSON.parse(r.payload) as Record<string, unknown>;
      } catch {
        // shown without its details
      }
      const e = taskEvent(
        {
          id: r.id,
          chatId: r.chatId,
          kind: r.kind,
          payload,
          ...(r.error !== null ? { error: r.error } : {}),
          ...(r.planId !== null ? { planId: r.planId } : {}),
          ...(r.planNo !== null ? { planNo: r.planNo } : {}),
        },
        r.status,
      );
      if (e) this.push(e, r.updatedAt);
    }
  }

  /** A task ended (the scheduler's onFinished). */
  taskEnded(t: Task, status: "done" | "failed" | "cancelled"): void {
    const e = taskEvent({ ...t, payload: t.payload as unknown as Record<string, unknown> }, status);
    if (e) this.push(e);
  }

  /** An addressed message was refused on arrival (a policy, a cap, its age). */
  refused(chatId: string, messageId: number, reason: string): void {
    this.push({
      kind: reason.startsWith("cap:") ? "cap" : "refusal",
      chatId,
      messageId,
      text: `not answered: ${reason}`,
    });
  }

  caughtUp(s: { readonly messages: number; readonly chats: number; readonly requests: number }): void {
    this.push({
      kind: "catch-up",
      text: `caught up: ${s.messages} messages in ${s.chats} chats, ${s.requests} requests`,
    });
  }

  /** Something became of one of the persona's intentions (set, held, skipped, missed, cancelled). */
  intention(chatId: string, text: string): void {
    this.push({ kind: "intention", chatId, text });
  }

  /** Something went wrong outside a task (a catch-up, …). */
  error(text: string, chatId?: string): void {
    this.push({ kind: "error", text, ...(chatId !== undefined ? { chatId } : {}) });
  }

  /** The newest events, newest first. */
  recent(limit = 200): ActivityEvent[] {
    return this.ring.slice(-limit).reverse();
  }

  /** The last errors, newest first. */
  lastErrors(): ActivityEvent[] {
    return [...this.errors].reverse();
  }
}
