/**
 * Thread lanes: which conversation inside a chat a message belongs to.
 *
 * Key = `topic:<chat>:<topic id>` > `reply:<chat>:<root of the reply chain>` > `root:<chat>`:
 * - a forum message belongs to its topic (General is topic 1), whatever it replies to;
 * - a group message that replies to something belongs to the lane of its reply chain's root (the
 *   store keeps that root per message, `threadRoot`); the root message itself opens that lane and
 *   is read with it, though its own key is `root:` (it replied to nothing);
 * - everything else is the chat's root lane. The persona's own messages are read with the root lane
 *   too, wherever they reply: it usually answers a question by replying to it, which puts the
 *   answer in the question's reply lane, and the next question asked in the open chat must still
 *   see what the persona said.
 * A private chat is one conversation: every DM (marked id > 0, Saved Messages included) is one
 * `root:` lane, replies or not — a person replying to an older DM message is still talking to us.
 */
import type { LaneFilter, MessageStore, StoredMessage } from "../store/messages";

export type Lane =
  | { readonly kind: "topic"; readonly chatId: string; readonly topicId: number }
  | { readonly kind: "reply"; readonly chatId: string; readonly rootId: number }
  | { readonly kind: "root"; readonly chatId: string };

/** What {@link laneOf} needs of a message (a StoredMessage has it all). */
export type LaneMember = Pick<StoredMessage, "chatId" | "topicId" | "threadRoot">;

/** How many of the chat's newest messages a lane read scans by default (one indexed range). */
export const LANE_SCAN = 400;

/** Thrown by {@link parseLaneKey} for a string that is not a lane key. */
export class LaneKeyError extends Error {
  override readonly name = "LaneKeyError";
}

/** A private chat: marked ids of users are positive, of groups and channels negative. */
export function isPrivateChat(chatId: string): boolean {
  return !chatId.startsWith("-");
}

/** The lane a message belongs to. */
export function laneOf(m: LaneMember): Lane {
  if (m.topicId !== undefined) return { kind: "topic", chatId: m.chatId, topicId: m.topicId };
  if (m.threadRoot !== undefined && !isPrivateChat(m.chatId)) return { kind: "reply", chatId: m.chatId, rootId: m.threadRoot };
  return { kind: "root", chatId: m.chatId };
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
  if (!m) throw new LaneKeyError(`not a lane key: ${JSON.stringify(key)} (expected topic:<chat>:<topic id>, reply:<chat>:<root id> or root:<chat>)`);
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
      return isPrivateChat(l.chatId) ? { kind: "all" } : { kind: "unthreaded" };
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
