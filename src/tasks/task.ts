import type { ReplyContext } from "../types";

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
  received: { items: ReceivedItem[]; llmParks?: number };
  typing: { seconds: number; action: "typing" | "sticker"; topicId?: number; until?: number };
  /** `answers`: the addressed messages this plan answers — carried into the next plan if cancelled unsent. */
  send: { text: string; replyTo?: number; topicId?: number; sentId?: number; answers?: number[] };
  react: { messageId: number; emoji: string };
  sticker: { set: string; name: string; replyTo?: number; topicId?: number; answers?: number[] };
  wait: { seconds: number; until?: number };
  read: { maxId: number };
  block: Record<string, never>;
  unblock: Record<string, never>;
}

export type TaskKind = keyof TaskPayloads;

/** One node of a conversation's task graph, as stored. */
export interface Task<K extends TaskKind = TaskKind> {
  readonly id: number;
  readonly chatId: string;
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
