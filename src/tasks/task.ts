import type { ReplyContext } from "../base/types";

/** Lifecycle of a task row. `pending` covers both "not yet ready" and "ready". */
export type TaskStatus = "pending" | "running" | "done" | "failed" | "cancelled";

/** An addressed message waiting to be planned, with the reply context fetched on arrival. */
export interface ReceivedItem {
  readonly messageId: number;
  readonly reply?: ReplyContext;
  /** The reply target is being fetched; the task waits for it, but never past this time. */
  readonly awaitingReplyUntil?: number;
}

/**
 * One of the persona's own intentions that fell due (life/intentions.ts): its planning call
 * carries the note, marked as the persona's own, so the model decides what to do now — or nothing.
 */
export interface IntentionItem {
  /** Its row in the intentions table. */
  readonly id: number;
  /** What the persona meant to do, in its own words. */
  readonly note: string;
  /** When it was set, and when it was meant for (ms). */
  readonly setAt: number;
  readonly dueAt: number;
  /** The message being answered when it was set. */
  readonly inReplyTo?: number;
}

/**
 * What a look-up found (planning/lookup-handler.ts), carried by the planning round it started so
 * the persona answers from it: the question or page, the text found and its sources — or `none`,
 * why there is nothing (refused by a rule or a cap, failed, the page could not be read).
 */
export interface LookupNote {
  readonly query?: string;
  readonly url?: string;
  readonly text?: string;
  readonly sources?: readonly { readonly uri: string; readonly title?: string }[];
  /** Pages that could not be read, and Gemini's reason (`paywall`, `unsafe`, `error`, …). */
  readonly unread?: readonly { readonly url: string; readonly status: string }[];
  readonly none?: string;
  /** When it was looked up (ms). */
  readonly at: number;
}

/**
 * Payload of each task kind that lives on the graph. The engine's own kinds are here (`received`
 * and `typing`: bursts, the quiet window and bridge typing are engine rules, received-rules.ts);
 * every other kind adds its payload in the file of its handler, by declaration merging
 * (`declare module "…/tasks/task" { interface TaskPayloads { send: … } }`), so the engine
 * imports no domain room and a kind without a handler still fails to compile (HandlerMap).
 */
export interface TaskPayloads {
  /**
   * `authors`: who wrote the burst (their typing holds planning); `planBy`: the latest time the
   * burst may wait for more messages or for its authors' typing (see quiet-window.ts).
   * `intentions`: the persona's own intentions due now, planned with the messages (or alone, with
   * no message); `spoke`: its plan sent something (set by the handler; intentions back off on it).
   */
  received: {
    items: ReceivedItem[];
    authors?: string[];
    planBy?: number;
    intentions?: IntentionItem[];
    spoke?: boolean;
    /** What a look-up the last plan asked for found: this round answers from it (no new look-up). */
    lookups?: LookupNote[];
  };
  /**
   * `bridge`: keeps a spell of a replanned chat showing until the new plan types (no flicker).
   * `answers`: the addressed messages the send it precedes answers (the answer-age check).
   */
  typing: {
    seconds: number;
    action: "typing" | "sticker" | "record";
    topicId?: number;
    until?: number;
    bridge?: boolean;
    answers?: number[];
  };
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
  /** The `received` task whose plan made this one (absent: no plan made it, or an older row). */
  readonly planId?: number;
  /** A `received` task whose planning round ended: its plan's number within its chat. */
  planNo?: number;
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

/** The task graph a lane's summaries run on (summary/lane-summaries.ts). */
export const summaryGraph = (lane: string) => `summary:${lane}`;
/** True for a lane-summary graph (not a chat's: the gate, owner commands and /status count it apart). */
export const isSummaryGraph = (graph: string) => graph.startsWith("summary:");
