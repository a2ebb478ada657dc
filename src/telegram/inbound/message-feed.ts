import type { Logger } from "pino";
import { Api } from "telegram";
import type { InboundHandler, InboundOutcome } from "../../inbound/pipeline";
import { describeDbFailure as describeFailure, mustWait } from "../../store/db";
import { entityName, type EntityRecord, type EntityStore } from "../../store/entities";
import type { InboundMessage } from "../../base/types";
import { GateClosedError, type GateWork, type WriteGate } from "../../store/write-gate";
import {
  parseChatMove,
  parseMessage,
  parseTopicTitle,
  parseTopicClosure,
  type ChatMove,
  type GramMessage,
  type TopicClosure,
  type TopicTitle,
} from "./parse";
import { parseDeparture, type Departure } from "./departures";
import type { ReadCalls } from "./read-calls";
import { fetchReplyContext } from "./reply-context";
import type { PtsInfo, SenderResolver } from "./sender-resolver";

export interface MessageFeedOptions {
  readonly handler: InboundHandler;
  readonly entities: EntityStore;
  readonly resolver: SenderResolver;
  readonly selfId: string;
  readonly replyTimeoutMs: number;
  /** The reply fetch goes through these (flood pauses), when given. */
  readonly reads?: ReadCalls;
  readonly logger: Logger;
  /** While the database is busy or its disk fails writes, messages wait here in arrival order (store/write-gate.ts). */
  readonly gate?: WriteGate;
  /**
   * The open group commit: resolves when it is committed, rejects when it is rolled back
   * (store/db.ts `committed`). A message stored in the group commit is handed back to the caller
   * only once that commit is in the file; one whose commit is rolled back (a full disk at
   * COMMIT, or at an addressed message's transaction that joined it) is run again through the
   * gate, in its arrival place — so an update is never confirmed (its pts stored, a difference
   * ended) for a message that is not in the file.
   */
  readonly committed?: () => Promise<void>;
  /** The database file, named in the error line of a database failure (with its remedy). */
  readonly dbFile?: string;
  /** A forum topic was created or renamed (its service message arrived; store/topics.ts keeps it). */
  readonly topicTitled?: (t: TopicTitle) => void;
  /** A forum topic was closed or reopened (its service message). */
  readonly topicClosed?: (t: TopicClosure) => void;
  /** Someone left a group or was removed (its service message arrived; life/intentions.ts drops theirs). */
  readonly memberLeft?: (d: Departure) => void;
  /** A basic group was upgraded to a supergroup (either migrate service message; store/chat-moves.ts). */
  readonly chatMoved?: (m: ChatMove) => void;
}

/**
 * One GramJS message (live or from a catch-up) into the inbound pipeline. A service message is
 * not conversation: only a forum topic's title is taken from it.
 */
export type MessageFeed = (
  raw: GramMessage | Api.MessageService,
  pts?: PtsInfo,
  /**
   * Called once the message's row is in the open group commit, before that commit: the update
   * state that covers it is written then, into the same commit — one commit per message, and
   * never a pts in the file without its message (a rollback takes both). Not called for what
   * stores no row in the group commit (service messages, addressed ones: their own transaction
   * committed before the handler returned); the caller writes their state once the feed resolves.
   */
  stored?: () => void,
) => Promise<InboundOutcome | undefined>;

/**
 * Outcomes whose row may sit in the open group commit: stored now, or found stored (perhaps by
 * another copy of the message whose commit is still open). Every other outcome was committed
 * by its own transaction before the handler returned.
 */
const IN_GROUP_COMMIT: ReadonlySet<InboundOutcome> = new Set<InboundOutcome>(["stored", "duplicate"]);

/** What the entity store adds to a message whose update named no sender (or no chat title). */
function enrich(
  m: InboundMessage,
  sender: EntityRecord | undefined,
  chat: EntityRecord | undefined,
): InboundMessage {
  let out = m;
  if (m.chatType !== "dm" && m.chatTitle === undefined && chat?.title)
    out = { ...out, chatTitle: chat.title };
  if (!m.senderUnknown) return out;
  if (!sender) return out;
  const name = entityName(sender);
  const usable = !sender.min && sender.accessHash !== undefined;
  return {
    ...out,
    ...(name ? { senderName: name } : {}),
    ...(sender.username ? { senderUsername: sender.username } : {}),
    senderIsBot: sender.bot,
    ...(m.chatType === "dm" && usable ? { accessHash: sender.accessHash! } : {}),
    // A DM is answered through the partner's access hash; a group only needs the name.
    senderUnknown: m.chatType === "dm" ? !usable : !name,
  };
}

/**
 * Parse (no API call), fill in what the entity store knows, and hand the message to the
 * pipeline with two lazy fetches it calls only when it will answer: the reply target and,
 * for a sender nobody named, the sender.
 */
export function createMessageFeed(o: MessageFeedOptions): MessageFeed {
  return async (raw, pts, stored) => {
    if (raw instanceof Api.MessageService) {
      // Rare: ordinary messages never take this branch.
      const move = o.chatMoved ? parseChatMove(raw) : undefined;
      if (move) {
        // Not swallowed: a move that could not be kept (a full disk, a closed write gate) fails the
        // update like a message that could not be stored, so it is fetched and followed again.
        o.chatMoved!(move);
        return undefined;
      }
      const t = o.topicTitled ? parseTopicTitle(raw) : undefined;
      if (t) {
        try {
          o.topicTitled!(t);
        } catch (err) {
          o.logger.warn(
            { component: "inbound", chatId: t.chatId, topicId: t.topicId, err },
            "topic title not kept",
          );
        }
      }
      const c = o.topicClosed ? parseTopicClosure(raw) : undefined;
      if (c) {
        try {
          o.topicClosed!(c);
        } catch (err) {
          o.logger.warn(
            { component: "inbound", chatId: c.chatId, topicId: c.topicId, err },
            "topic closing not kept",
          );
        }
      }
      const d = o.memberLeft ? parseDeparture(raw) : undefined;
      if (d) {
        try {
          o.memberLeft!(d);
        } catch (err) {
          o.logger.warn({ component: "inbound", chatId: d.chatId, err }, "departure not kept");
        }
      }
      return undefined;
    }
    const parsed = parseMessage(raw);
    if (!parsed) return undefined;
    const m = enrich(
      parsed,
      parsed.senderUnknown ? o.entities.get(parsed.senderId) : undefined,
      parsed.chatTitle === undefined ? o.entities.get(parsed.chatId) : undefined,
    );
    const resolveSender = async (): Promise<InboundMessage | undefined> => {
      const e = await o.resolver.resolve({
        chatId: m.chatId,
        chatType: m.chatType,
        senderId: m.senderId,
        messageId: m.messageId,
        ...(pts ? { pts } : {}),
      });
      if (!e) return undefined;
      return enrich(m, e, undefined);
    };
    const fetchReply = () =>
      fetchReplyContext(raw, {
        selfId: o.selfId,
        timeoutMs: o.replyTimeoutMs,
        logger: o.logger,
        ...(o.reads ? { reads: o.reads } : {}),
      });
    const sender = m.senderUnknown ? resolveSender : undefined;
    // The handler, and then the group commit its row joined, when it joined one: a message is
    // handled once the commit holding it is in the file (a rollback rejects, and it runs again).
    const durable: GateWork<InboundOutcome> = async (h) => {
      const handled = o.handler(m, fetchReply, sender, h);
      // A message that is not addressed is stored synchronously, in the group commit open now.
      const batch = o.committed?.();
      const outcome = await handled;
      if (batch !== undefined && IN_GROUP_COMMIT.has(outcome)) {
        // The row is in the open commit (or an earlier one): the pts covering it joins it now. Had
        // that commit been rolled back meanwhile, the tracker fell back to the file's pts already.
        stored?.();
        await batch;
      }
      return outcome;
    };
    try {
      // The hot path calls the handler directly; only a busy database or a failed write (or
      // messages already waiting for it) sends a message through the gate.
      const gate = o.gate;
      if (gate === undefined) return await o.handler(m, fetchReply, sender);
      const seq = gate.arrive();
      if (!gate.open) return await gate.run(durable, seq);
      try {
        return await durable({ retry: false });
      } catch (e) {
        if (!mustWait(e)) throw e;
        return await gate.retry(durable, e, seq);
      }
    } catch (err) {
      // GramJS swallows handler errors; make sure ours are seen. The caller must know too: a
      // message that was not stored must not move the update state past it.
      if (!(err instanceof GateClosedError)) {
        o.logger.error(
          {
            component: "inbound",
            chatId: m.chatId,
            messageId: m.messageId,
            err: describeFailure(err, o.dbFile),
          },
          "inbound message handling failed",
        );
      }
      throw err;
    }
  };
}
