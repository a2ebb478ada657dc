import type { ReplyContext } from "../types";
import type { PlanTrace } from "./handlers/plan-trace";

/** Lifecycle of a task row. `pending` covers both "not yet ready" and "ready". */
export type TaskStatus = "pending" | "running" | "done" | "failed" | "cancelled";

/** An addressed message waiting to be planned, with the reply context fetched on arrival. */
export interface ReceivedItem {
  readonly messageId: number;
  readonly reply?: ReplyContext;
  /** The reply target is being fetched; the task waits for it, but never past this time. */
  readonly awaitingReplyUntil?: number;
}

/** Payload of each task kind that lives on the graph. */
export interface TaskPayloads {
  /**
   * `authors`: who wrote the burst (their typing holds planning); `planBy`: the latest time the
   * burst may wait for more messages or for its authors' typing (see quiet-window.ts).
   */
  received: {
    items: ReceivedItem[];
    authors?: string[];
    planBy?: number;
    /** Set when planning completes: the request's sections and the plan (handlers/plan-trace.ts), for the console. */
    trace?: PlanTrace;
  };
  /**
   * `bridge`: keeps a spell of a replanned chat showing until the new plan types (no flicker).
   * `answers`: the addressed messages the send it precedes answers (the answer-age check).
   */
  typing: {
    seconds: number;
    action: "typing" | "sticker";
    topicId?: number;
    until?: number;
    bridge?: boolean;
    answers?: number[];
  };
  /**
   * smart/talkative groups: messages the prefilter let through, waiting for one addressing call
   * (src/inbound/addressing-implicit.ts). `firstAt`: when the burst began (bounds the gathering);
   * `outcome`: what the call decided, kept for the hourly interjection cap.
   */
  address: {
    items: number[];
    firstAt: number;
    outcome?: "answer" | "interject" | "react" | "none" | "superseded";
    /** What the call answered (its reason cut at 500 characters), when it answered. */
    verdict?: {
      addressed: boolean;
      confidence: number;
      interject: number;
      reason: string;
      messageId: number;
    };
    /** Why the outcome is what it is: below the confidence, a policy or cap refusal, the hourly cap… */
    why?: string;
  };
  /**
   * `answers`: the addressed messages this plan answers — carried into the next plan if cancelled
   * unsent. `autoReplyTo`: in a group, the message this answer replies to when others wrote after
   * it by the time it is sent (the plan named no reply_to).
   */
  send: {
    text: string;
    replyTo?: number;
    autoReplyTo?: number;
    topicId?: number;
    sentId?: number;
    answers?: number[];
  };
  react: { messageId: number; emoji: string };
  sticker: {
    set: string;
    name: string;
    replyTo?: number;
    autoReplyTo?: number;
    topicId?: number;
    answers?: number[];
  };
  wait: { seconds: number; until?: number };
  read: { maxId: number };
  block: Record<string, never>;
  unblock: Record<string, never>;
  /** Fold a lane's next messages into its rolling summary; runs on the graph `summary:<lane>` (summary/lane-summaries.ts). */
  summarize: { lane: string };
}

export type TaskKind = keyof TaskPayloads;

/** One node of a conversation's task graph, as stored. */
export interface Task<K extends TaskKind = TaskKind> {
  readonly id: number;
  readonly chatId: string;
  /** The forum topic whose graph this task belongs to (absent: the chat's own graph). */
  readonly topicId?: number;
  readonly kind: K;
  payload: TaskPayloads[K];
  status: TaskStatus;
  readonly dependsOn: readonly number[];
  notBefore: number;
  attempts: number;
  /** MTProto random_id (decimal string), chosen at creation and reused on every retry. */
  readonly randomId?: string;
  readonly createdAt: number;
  error?: string;
  /**
   * The last attempt may have reached the server without us hearing back (a timeout, or the
   * process died mid-request): only the server's answer to a retry with the same random_id
   * settles it. Never failed or cancelled while in doubt.
   */
  inDoubt?: boolean;
}

/**
 * A task to create. `after` refers to other new tasks of the same batch by index, so a plan
 * can be inserted in one transaction before any database id exists.
 */
export interface NewTask<K extends TaskKind = TaskKind> {
  readonly kind: K;
  readonly payload: TaskPayloads[K];
  readonly notBefore?: number;
  readonly after?: readonly number[];
  readonly dependsOn?: readonly number[];
  readonly needsRandomId?: boolean;
}

/** Narrow a task to one kind. */
export function isKind<K extends TaskKind>(t: Task, kind: K): t is Task<K> {
  return t.kind === kind;
}

/**
 * The task graph a task belongs to: one per chat, and one per forum topic (General, topic 1,
 * is the chat's own graph). Each graph runs one task at a time.
 */
export function graphKey(chatId: string, topicId?: number): string {
  return topicId === undefined ? chatId : `${chatId}/${topicId}`;
}

/** A forum topic as graphs know it: the General topic (1) and no topic are the chat's own graph. */
export function graphTopic(topicId: number | undefined): number | undefined {
  return topicId === undefined || topicId === 1 ? undefined : topicId;
}
