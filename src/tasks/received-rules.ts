import type { ReplyContext } from "../base/types";
import { TYPING_REFRESH_MS } from "./pacing";
import { firstPlanTime, joinedPlanTime, planDeadline, typingHold, type TypingSource } from "./quiet-window";
import {
  graphKey,
  graphTopic,
  isKind,
  type IntentionItem,
  type NewTask,
  type ReceivedItem,
  type Task,
} from "./task";

/** How a planning round handed over to a newer one ends: "superseded by #<the newer task>". */
const SUPERSEDED = "superseded by";
const SUPERSEDED_RE = new RegExp(`^${SUPERSEDED} #(\\d+)$`);

/**
 * The newer planning round a `received` task handed its messages to (read from the reason it
 * ended with, done or cancelled), or undefined: it was not superseded. Such a round made no plan
 * that counts, whatever its status says.
 */
export function supersededBy(reason: string | null | undefined): number | undefined {
  const m = reason ? SUPERSEDED_RE.exec(reason) : null;
  return m ? Number(m[1]) : undefined;
}

/** How long a received task waits for its reply fetch to report back, at most. */
const REPLY_WAIT_MS = 10_000;
/** A bridge typing spell lasts until the burst's deadline plus this (planning time), unless the plan ends it first. */
const BRIDGE_TAIL_MS = 10_000;

/** What the received-task rules need from the scheduler's graphs. */
export interface ReceivedGraph {
  now(): number;
  /** Open tasks of a graph (see graphKey), oldest first (live objects). */
  tasksOf(graph: string): readonly Task[];
  /** Open tasks of a chat, every graph of it. */
  chatTasks(chatId: string): readonly Task[];
  add(chatId: string, topicId: number | undefined, batch: readonly NewTask[]): Task[];
  /**
   * Cancel a graph's unfinished tasks (running ones when they come back). `silent`: a typing
   * spell that had started is not stopped with a cancel action.
   */
  cancelGraph(graph: string, reason: string, o: { silent: boolean }): Task[];
  /** Cancel one open task (see cancelGraph). */
  cancelTask(t: Task, reason: string, o: { silent: boolean }): void;
  /** The task counts as started: it shows something (a bridge typing spell), so a cancel cleans up. */
  markShowing(t: Task): void;
  save(t: Task): void;
  finish(t: Task, status: "done" | "cancelled", reason: string): void;
  transaction(fn: () => void): void;
  kick(): void;
  log(t: Task, event: string, extra: Record<string, unknown>): void;
}

/**
 * The persona's day as an arrival sees it (config/persona-rhythm.ts DayWatch): asleep, what
 * arrives waits for its waking — planning and the read mark count from then; busy, the read
 * delay is stretched.
 */
export interface ArrivalRhythm {
  arrival(now: number): { readonly wakeAt?: number; readonly stretch: number };
}

/** One addressed message, as the inbound pipeline hands it over. */
export interface ReceivedArrival {
  /** Seconds-to-ms of the persona's read delay: the read mark's time. */
  readonly readDelayMs: number;
  /** The persona's quiet window (0: plan on the next tick). */
  readonly quietMs?: number;
  /** The forum topic it was posted in (its graph). */
  readonly topicId?: number;
  /** Its author (their typing holds planning, bounded). */
  readonly senderId?: string;
  readonly awaitingReply?: boolean;
}

/**
 * The rules of `received` tasks (an addressed message waiting to be planned), apart from the
 * generic graph scheduling: bursts join one planning call after a quiet window (and while their
 * authors type, bounded), a newer message makes a plan stale, a stale task hands its messages to
 * the newer one, a replan keeps the typing status showing, a reply fetch holds the task (bounded).
 */
export class ReceivedRules {
  constructor(
    private readonly g: ReceivedGraph,
    private readonly tickMs: number,
    private readonly typing?: TypingSource,
    private readonly day?: ArrivalRhythm,
  ) {}

  /**
   * An addressed message arrived. While its graph's `received` task has not started, the
   * message joins it (a burst costs one planning call) and the quiet window starts again,
   * bounded by the burst's deadline. Otherwise the graph's unstarted tasks are cancelled — the
   * plan is stale — and a new `received` task is created; a plan still being made for the old
   * one will be dropped. A typing spell that was showing is not stopped: a bridge spell keeps it
   * up until the new plan types (or turns out to type nothing). A read mark follows after
   * `readDelayMs`. With `awaitingReply`, the task waits for `attachReply` — but never longer than
   * REPLY_WAIT_MS, so a fetch that never reports back cannot silence the chat.
   */
  enqueue(chatId: string, messageId: number, o: ReceivedArrival): void {
    const now = this.g.now();
    // Asleep (`# Sleep`), everything counts from the persona's waking: no read mark, no plan before.
    const day = this.day?.arrival(now);
    const start = Math.max(now, day?.wakeAt ?? now);
    const readDelayMs = o.readDelayMs * (day?.stretch ?? 1);
    const quietMs = o.quietMs ?? 0;
    const topicId = graphTopic(o.topicId);
    const graph = graphKey(chatId, topicId);
    const item: ReceivedItem = {
      messageId,
      ...(o.awaitingReply ? { awaitingReplyUntil: now + REPLY_WAIT_MS } : {}),
    };
    const tasks = this.g.tasksOf(graph);
    const waiting = tasks.find((t): t is Task<"received"> => t.kind === "received" && t.status === "pending");
    const read = tasks.find((t): t is Task<"read"> => t.kind === "read" && t.status === "pending");
    if (waiting) {
      this.g.transaction(() => {
        const authors = waiting.payload.authors ?? [];
        waiting.payload = {
          ...waiting.payload,
          items: [...waiting.payload.items, item],
          ...(o.senderId !== undefined && !authors.includes(o.senderId)
            ? { authors: [...authors, o.senderId] }
            : {}),
        };
        waiting.notBefore = joinedPlanTime({
          notBefore: waiting.notBefore,
          now: start,
          quietMs,
          ...(waiting.payload.planBy !== undefined ? { planBy: waiting.payload.planBy } : {}),
        });
        this.g.save(waiting);
        if (read) {
          if (read.payload.maxId < item.messageId) {
            read.payload = { maxId: item.messageId };
            this.g.save(read);
          }
        } else {
          // The burst's read mark has gone out already: this message is read in turn.
          this.g.add(chatId, topicId, [
            { kind: "read", payload: { maxId: item.messageId }, notBefore: start + readDelayMs },
          ]);
        }
      });
      this.g.log(waiting, "joined", { messageId: item.messageId, planAt: waiting.notBefore });
      this.g.kick();
      return;
    }
    this.g.transaction(() => {
      // A typing spell on screen stays there through the replan (see the bridge below).
      const showing = tasks.find(
        (t): t is Task<"typing"> =>
          isKind(t, "typing") && (t.status === "running" || (t.payload.until ?? 0) > now),
      );
      const cancelled = this.g.cancelGraph(graph, "replanned: a newer message arrived", { silent: true });
      // Messages whose answer was cancelled before it went out are still owed one: the new plan covers them too.
      const owed = new Set<number>();
      for (const t of cancelled) {
        // (A look-up not done yet owes the answer it was to bring.)
        if (isKind(t, "send") || isKind(t, "sticker") || isKind(t, "look_up"))
          for (const id of t.payload.answers ?? []) if (id !== messageId) owed.add(id);
      }
      const items = [...[...owed].sort((a, b) => a - b).map((id) => ({ messageId: id })), item];
      const planBy = planDeadline(start, quietMs);
      const batch: NewTask[] = [
        {
          kind: "received",
          payload: { items, planBy, ...(o.senderId !== undefined ? { authors: [o.senderId] } : {}) },
          notBefore: firstPlanTime(start, quietMs, this.tickMs),
        },
        { kind: "read", payload: { maxId: item.messageId }, notBefore: start + readDelayMs },
      ];
      if (showing) {
        batch.push({
          kind: "typing",
          payload: {
            seconds: Math.ceil((planBy + BRIDGE_TAIL_MS - now) / 1000),
            action: showing.payload.action,
            ...(topicId !== undefined ? { topicId } : {}),
            until: planBy + BRIDGE_TAIL_MS,
            bridge: true,
          },
          // Refreshed when the spell it replaces would have been.
          notBefore:
            showing.status === "running" ? now + TYPING_REFRESH_MS : Math.max(now, showing.notBefore),
        });
      }
      const made = this.g.add(chatId, topicId, batch);
      if (showing) this.g.markShowing(made[2]!);
    });
  }

  /**
   * One of the persona's intentions fell due: it joins the graph's `received` task that has not
   * started (one planning call for the messages and the intention), else a new one plans it at
   * once, with no message and no read mark. `authors`: whom it was set for (the call counts in
   * their share). Nothing is cancelled: a plan under way goes on (a newer `received` task makes a
   * running one stale and takes its messages, as for a new message). Returns the task.
   */
  enqueueIntention(
    chatId: string,
    topicId: number | undefined,
    item: IntentionItem,
    authors: readonly string[],
  ): Task<"received"> {
    const graph = graphKey(chatId, graphTopic(topicId));
    const waiting = this.g
      .tasksOf(graph)
      .find((t): t is Task<"received"> => t.kind === "received" && t.status === "pending");
    if (waiting) {
      const known = waiting.payload.authors ?? [];
      const more = authors.filter((a) => !known.includes(a));
      waiting.payload = {
        ...waiting.payload,
        intentions: [...(waiting.payload.intentions ?? []), item],
        ...(more.length ? { authors: [...known, ...more] } : {}),
      };
      this.g.save(waiting);
      this.g.log(waiting, "joined", { intentionId: item.id });
      this.g.kick();
      return waiting;
    }
    const [made] = this.g.add(chatId, graphTopic(topicId), [
      {
        kind: "received",
        payload: { items: [], intentions: [item], ...(authors.length ? { authors: [...authors] } : {}) },
      },
    ]);
    return made as Task<"received">;
  }

  /**
   * A due `received` task holds while an author of its burst is typing in its graph (bounded by
   * the burst's deadline). Returns the time to look again, or 0 when it may plan now.
   */
  typingHold(t: Task, now: number): number {
    if (!isKind(t, "received")) return 0;
    return typingHold(this.typing, {
      chatId: t.chatId,
      ...(t.topicId !== undefined ? { topicId: t.topicId } : {}),
      ...(t.payload.authors ? { authors: t.payload.authors } : {}),
      ...(t.payload.planBy !== undefined ? { planBy: t.payload.planBy } : {}),
      now,
    });
  }

  /**
   * A `received` task ended and no other waits in its graph: the bridge spells it kept showing
   * end too — silently when the new plan types next (its own spell takes over), else with a
   * cancel action (nothing more is coming).
   */
  planEnded(task: Task, o: { typesNext: boolean }): void {
    if (!isKind(task, "received")) return;
    const graph = graphKey(task.chatId, task.topicId);
    const tasks = this.g.tasksOf(graph);
    if (tasks.some((t) => t !== task && t.kind === "received")) return;
    for (const t of [...tasks]) {
      if (isKind(t, "typing") && t.payload.bridge)
        this.g.cancelTask(t, "the new plan is ready", { silent: o.typesNext });
    }
  }

  /** The reply context of an addressed message has arrived: store it in its task and let it run. */
  attachReply(chatId: string, messageId: number, reply: ReplyContext | undefined): void {
    const task = this.g
      .chatTasks(chatId)
      .find(
        (t): t is Task<"received"> =>
          isKind(t, "received") && t.payload.items.some((i) => i.messageId === messageId),
      );
    if (!task) return;
    task.payload = {
      ...task.payload,
      items: task.payload.items.map((i) =>
        i.messageId === messageId ? { messageId, ...(reply ? { reply } : {}) } : i,
      ),
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
    if (!isKind(t, "received") || !t.payload.items.some((i) => i.awaitingReplyUntil !== undefined))
      return false;
    t.payload = { ...t.payload, items: t.payload.items.map(({ awaitingReplyUntil: _a, ...i }) => i) };
    return true;
  }

  /** A newer `received` task of the same graph, if one is open: this one's plan would be stale. */
  newer(task: Task): Task<"received"> | undefined {
    if (task.kind !== "received") return undefined;
    return this.g
      .tasksOf(graphKey(task.chatId, task.topicId))
      .find((t): t is Task<"received"> => t.kind === "received" && t.id > task.id);
  }

  /**
   * Give a stale `received` task's messages (and their reply contexts) to the newer one, which
   * then plans for all of them, and close the stale one.
   */
  handOver(stale: Task<"received">, newer: Task<"received">, status: "done" | "cancelled"): void {
    const known = new Set(newer.payload.items.map((i) => i.messageId));
    const older = stale.payload.items.filter((i) => !known.has(i.messageId));
    // The persona's due intentions go along: the newer plan acts on them (they leave the stale task).
    const has = new Set((newer.payload.intentions ?? []).map((i) => i.id));
    const intentions = [
      ...(stale.payload.intentions ?? []).filter((i) => !has.has(i.id)),
      ...(newer.payload.intentions ?? []),
    ];
    newer.payload = {
      ...newer.payload,
      items: [...older, ...newer.payload.items].sort((a, b) => a.messageId - b.messageId),
      ...(intentions.length ? { intentions } : {}),
    };
    if (stale.payload.intentions) {
      const { intentions: _moved, ...rest } = stale.payload;
      stale.payload = rest;
    }
    this.g.save(newer);
    this.g.finish(stale, status, `${SUPERSEDED} #${newer.id}`);
  }
}
