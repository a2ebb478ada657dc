/**
 * Rooms and reply threads: where a message belongs inside a chat.
 *
 * - **The room** is what a member scrolls through: a forum topic (General is topic 1), else the
 *   whole chat — replies included, since in Telegram a reply is how people talk in the room. A
 *   private chat is one room. The room's window and its rolling summary cover every message of it.
 * - **A reply thread** (groups, outside forum topics) is a reply chain: its root and every message
 *   whose chain leads to it (the store keeps each message's root, `threadRoot`). It decides which
 *   older messages come along with a question asked inside it, and keeps a summary of its own.
 *
 * Lane keys (summaries, task graphs): `topic:<chat>:<topic id>` and `root:<chat>` name rooms,
 * `reply:<chat>:<root id>` a thread.
 */
import type { LaneFilter, MessageStore, StoredMessage } from "../store/messages";

export type Lane =
  | { readonly kind: "topic"; readonly chatId: string; readonly topicId: number }
  | { readonly kind: "reply"; readonly chatId: string; readonly rootId: number }
  | { readonly kind: "root"; readonly chatId: string };

/** What {@link threadOf} needs of a message (a StoredMessage has it all). */
export type LaneMember = Pick<StoredMessage, "chatId" | "topicId" | "threadRoot">;

/** How many of the chat's newest messages a lane read scans by default (one indexed range). */
const LANE_SCAN = 400;

/** Thrown by {@link parseLaneKey} for a string that is not a lane key. */
export class LaneKeyError extends Error {
  override readonly name = "LaneKeyError";
}

/** A private chat: marked ids of users are positive, of groups and channels negative. */
function isPrivateChat(chatId: string): boolean {
  return !chatId.startsWith("-");
}

/** The room a message belongs to: its forum topic, else the chat. */
export function roomOf(m: Pick<StoredMessage, "chatId" | "topicId">): Lane {
  if (m.topicId !== undefined) return { kind: "topic", chatId: m.chatId, topicId: m.topicId };
  return { kind: "root", chatId: m.chatId };
}

/** The reply thread a group message belongs to (outside forum topics), else undefined. */
export function threadOf(m: LaneMember): Lane | undefined {
  if (m.topicId !== undefined || m.threadRoot === undefined || isPrivateChat(m.chatId)) return undefined;
  return { kind: "reply", chatId: m.chatId, rootId: m.threadRoot };
}

/** The lane key of the room a message of this chat and topic belongs to. */
export function roomKey(chatId: string, topicId: number | undefined): string {
  return laneKey(roomOf({ chatId, ...(topicId !== undefined ? { topicId } : {}) }));
}

/** `topic:<chat>:<topic id>`, `reply:<chat>:<root id>` or `root:<chat>`. */
export function laneKey(l: Lane): string {
  switch (l.kind) {
    case "topic":
      return `topic:${l.chatId}:${l.topicId}`;
    case "reply":
      return `reply:${l.chatId}:${l.rootId}`;
    case "root":
      return `root:${l.chatId}`;
  }
}

const KEY_RE = /^(?:(topic|reply):(-?\d+):(\d+)|root:(-?\d+))$/;

/** The lane a key names; a malformed key is a {@link LaneKeyError} quoting it. */
export function parseLaneKey(key: string): Lane {
  const m = KEY_RE.exec(key);
  if (!m)
    throw new LaneKeyError(
      `not a lane key: ${JSON.stringify(key)} (expected topic:<chat>:<topic id>, reply:<chat>:<root id> or root:<chat>)`,
    );
  if (m[4] !== undefined) return { kind: "root", chatId: m[4] };
  const chatId = m[2]!;
  const n = Number(m[3]);
  return m[1] === "topic" ? { kind: "topic", chatId, topicId: n } : { kind: "reply", chatId, rootId: n };
}

/** The store's filter for a lane. */
export function laneFilter(l: Lane): LaneFilter {
  switch (l.kind) {
    case "topic":
      return { kind: "topic", topicId: l.topicId };
    case "reply":
      return { kind: "thread", rootId: l.rootId };
    case "root":
      return { kind: "all" };
  }
}

/** Bounds of {@link readLane}. */
export interface ReadLaneOptions {
  /** Newest message id to include (default: the newest stored). */
  readonly uptoId?: number;
  /** Only messages above this id (e.g. what a summary already covers). */
  readonly afterId?: number;
  /** At most this many of the lane's newest messages. */
  readonly limit: number;
  /** How many of the chat's newest messages in the range are scanned (default {@link LANE_SCAN}). */
  readonly scan?: number;
}

/**
 * A lane's newest messages, oldest first, deleted ones left out: one query on the messages'
 * primary key over the chat's newest `scan` messages in the range — never the whole chat, so a
 * quiet lane in a busy chat may come back short (older lane messages are the summary's job).
 */
export function readLane(store: MessageStore, lane: Lane, o: ReadLaneOptions): StoredMessage[] {
  return store.lane(lane.chatId, laneFilter(lane), {
    limit: o.limit,
    scan: Math.max(o.scan ?? LANE_SCAN, o.limit),
    ...(o.uptoId !== undefined ? { uptoId: o.uptoId } : {}),
    ...(o.afterId !== undefined ? { afterId: o.afterId } : {}),
  });
}
