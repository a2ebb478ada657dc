import type { Logger } from "pino";
import { refusalText, type Admission } from "../policy/gate";
import type { MessageStore } from "../store/messages";
import type { ChatStore } from "../store/chats";
import type { InboundMessage, ReplyContext } from "../base/types";
import { errorMessage } from "../base/error-message";
import { mentionEntities } from "../context/mentions";
import type { AddressMatcher, NameMatch } from "./addressing";

/** Telegram's service notifications account (login codes etc.): never a conversation partner. */
const SERVICE_ACCOUNT_ID = "777000";

export interface InboundPipelineDeps {
  readonly messages: MessageStore;
  readonly chats: ChatStore;
  readonly names: AddressMatcher;
  readonly logger: Logger;
  /** Hand an addressed message to the task graph (durably); `awaitingReply` holds it for the fetch. */
  readonly enqueue: (
    chatId: string,
    messageId: number,
    o: { awaitingReply: boolean; senderId: string; topicId?: number },
  ) => void;
  /** The reply context of a message enqueued with `awaitingReply`, once fetched. */
  readonly attachReply: (chatId: string, messageId: number, reply: ReplyContext) => void;
  /** Addressed messages older than this (by their date) are stored but not answered (default 1 h). */
  readonly maxAnswerAgeMs?: number;
  /** Current time in ms — Telegram's, which message dates are — for maxAnswerAgeMs. */
  readonly now: () => number;
  /** An addressed message arrived with this date (ms): Telegram's time is at least that (telegram/connection/telegram-time.ts). */
  readonly dated?: (dateMs: number) => void;
  /**
   * When the persona first looks at a message of this date (its waking, for one that came in its
   * sleep: config/persona-rhythm.ts): the answer age counts from there. Default: its date.
   */
  readonly lookedAt?: (date: number) => number;
  /**
   * "chat\0sender" pairs stored under the stand-in name "user <id>" (a short update named nobody);
   * the first later message of that sender in that chat with a real name renames them.
   */
  readonly standIns?: Set<string>;
  /**
   * The persona's policies for a message it would answer (absent: answer everything addressed).
   * Called only for addressed messages, after they are stored.
   */
  readonly admit?: (m: InboundMessage) => AdmitResult;
  /**
   * An addressed message gets no task: why (a policy, a cap, its age), as decided here. Called
   * only on the addressed path, after the message is stored (the operator console's "why").
   */
  readonly refused?: (m: InboundMessage, reason: string) => void;
  /**
   * A stored group message that does not address the persona explicitly (smart/talkative groups
   * decide on it off the hot path: addressing-implicit.ts; so does every group for a message
   * that names the persona only in passing, `name`). Must be cheap in strict chats.
   */
  readonly implicit?: (m: InboundMessage, name?: NameMatch) => void;
  /**
   * A group message was stored (addressed or not): how her last remark there is received
   * (reception.ts). Must cost a Map lookup where she has not spoken lately.
   */
  readonly heard?: (m: InboundMessage) => void;
  /** The account's own outgoing messages (owner commands, owner takeover); absent: skipped. */
  readonly outgoing?: (m: InboundMessage) => Promise<InboundOutcome>;
  /** Counted per message stored (metrics: a plain number, nothing more on the hot path). */
  readonly stored?: { n: number };
  /** An addressed message was handed to planning (metrics). */
  readonly onAddressed?: () => void;
}

/**
 * What the policies say about an addressed message (the gate's Admission), decided once per
 * message. `needsSender`: the answer depends on who sent it (an allowlist naming @usernames, a
 * sender the update did not name); the pipeline resolves the sender and asks again. Without a
 * resolver it counts as ignored.
 */
type AdmitResult = Admission;

/** Default for `maxAnswerAgeMs`: a message that waited longer than an hour is history, not a question. */
export const MAX_ANSWER_AGE_MS = 3_600_000;

/**
 * Handle one inbound message. `fetchReply` resolves what it replies to (the adapter closes
 * over its raw platform message, text-only or not); it is only called for messages the
 * persona will answer, and must not throw (failures come back as `{kind: "unknown"}`).
 */
export type InboundHandler = (
  m: InboundMessage,
  fetchReply: () => Promise<ReplyContext>,
  /** For a message with `senderUnknown`: find the sender (a Telegram request); undefined if that failed. */
  resolveSender?: () => Promise<InboundMessage | undefined>,
  /**
   * `retry`: this very message was handled before and met a busy database part-way (store/write-gate.ts):
   * finding it already stored is then not a duplicate — the rest of its handling is still owed.
   */
  o?: { readonly retry?: boolean },
) => Promise<InboundOutcome>;

/** Why a message was not handed on; returned for tests and the sandbox's --verbose. */
export type InboundOutcome =
  | "skipped-own"
  | "skipped-bot"
  | "skipped-service"
  | "duplicate"
  | "stored"
  | "too-old"
  /** Addressed, but a policy says no answer (DM policy, allowed groups, pause, takeover, another persona). */
  | "ignored"
  /** Addressed, but a cap (answers per hour, daily token budget) holds it back. */
  | "capped"
  | "addressed"
  /** A command the owner typed in Saved Messages. */
  | "owner-command"
  /** The owner wrote in a chat from another device: stored as the persona's own, the persona stays silent there. */
  | "takeover";

/**
 * The inbound path: skip → persist → address → (only if addressed) policies → reply context →
 * enqueue. Every message pays one insert; nothing else touches the network or the LLM unless
 * the persona is addressed and its policies let it answer. The account's own outgoing messages
 * (typed by its owner, or echoes of its own sends) go to `outgoing` instead.
 */
export function createInboundPipeline(d: InboundPipelineDeps): InboundHandler {
  const maxAge = d.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS;
  const now = d.now;
  const seen = d.lookedAt ?? ((date: number) => date);
  return async (m, fetchReply, resolveSender, o) => {
    if (m.out) return d.outgoing ? d.outgoing(m) : "skipped-own";
    if (m.senderIsBot) return "skipped-bot";
    if (m.senderId === SERVICE_ACCOUNT_ID) return "skipped-service";
    // Explicit address (addressing.ts): a DM, Telegram's `mentioned` (an @mention, a reply to
    // the persona), or its name written as a name. One match of the names per message.
    const name = m.chatType === "dm" || m.mentioned ? undefined : d.names.nameMatch(m.text);
    // A name only written in it ("Mira said …") is not: the addressing call judges it (addressing-implicit.ts).
    const addressed = m.chatType === "dm" || m.mentioned || name?.spokenTo === true;
    if (addressed) d.dated?.(m.date);
    let admission: AdmitResult | undefined;
    if (addressed && m.senderUnknown && resolveSender) {
      // Only for messages the persona will answer: who wrote it (a bot? what name? how to reply?)
      // is fetched before anything is stored, so a crash during the fetch loses nothing — the
      // message comes again through catch-up. The policies are asked first (once): a refusal
      // that holds whoever the sender is (DM policy off, not a known contact, an id-only
      // allowlist, a pause, a takeover, a cap) keeps the message free of Telegram requests.
      if (!o?.retry && d.messages.has(m.chatId, m.messageId)) return "duplicate";
      if (now() - seen(m.date) <= maxAge) admission = d.admit?.(m);
      if (admission === undefined || admission.ok || "needsSender" in admission) {
        const standIn = m.senderName;
        const resolved = await resolveSender();
        if (resolved) {
          m = resolved;
          if (m.senderName !== standIn) d.messages.renameSender(m.chatId, m.senderId, standIn, m.senderName);
        } else {
          d.logger.warn(
            { component: "inbound", chatId: m.chatId, messageId: m.messageId },
            "sender unknown; answering without a name",
          );
        }
        if (m.senderIsBot) return "skipped-bot";
        if (admission && "needsSender" in admission) admission = d.admit?.(m);
      }
    }
    if (!addressed) {
      // Stored synchronously, in the open group commit (the feed runs it again if that commit is
      // rolled back). Found stored on a retry: an earlier run stored it and went on from there.
      if (!storeMessage(d, m)) return o?.retry ? "stored" : "duplicate";
      if (d.stored) d.stored.n++;
      if (m.chatType !== "dm") {
        d.heard?.(m);
        d.implicit?.(m, name);
      }
      return "stored";
    }
    // An addressed message is stored together with its task, in one transaction (it joins the
    // open group commit and commits it): a failed write (a full disk) leaves neither, so the
    // message waits and is stored and answered later — never stored without its task. From
    // here it survives a crash too; the task waits for the (up to 5 s) reply fetch.
    const isReply = m.replyToId !== undefined;
    const decided = d.messages.commitWith(
      (): { fresh: boolean; refused?: string; outcome: InboundOutcome } => {
        const fresh = storeMessage(d, m);
        // Found stored, even on a retry: the message and its task are one commit, so a run that
        // failed stored neither — whoever stored it (another copy: a catch-up, a repeated update)
        // handled it. (Going on would enqueue it twice.)
        if (!fresh) return { fresh, outcome: "duplicate" };
        if (now() - seen(m.date) > maxAge) {
          return {
            fresh,
            outcome: "too-old",
            refused: `too old to answer: ${Math.round((now() - m.date) / 60_000)} min old when it arrived (limit ${Math.round(maxAge / 60_000)} min)`,
          };
        }
        if (m.chatType === "dm")
          d.chats.upsert({
            chatId: m.chatId,
            chatType: m.chatType,
            ...(m.accessHash !== undefined ? { accessHash: m.accessHash } : {}),
            title: m.senderName,
            ...(m.senderUsername !== undefined ? { username: m.senderUsername } : {}),
          });
        admission ??= d.admit?.(m);
        if (admission && !admission.ok) {
          if ("needsSender" in admission)
            return {
              fresh,
              outcome: "ignored",
              refused: "policy: DM policy allowlist: the sender could not be named",
            };
          return { fresh, outcome: admission.outcome, refused: refusalText(admission) };
        }
        d.enqueue(m.chatId, m.messageId, {
          awaitingReply: isReply,
          senderId: m.senderId,
          ...(m.topicId !== undefined ? { topicId: m.topicId } : {}),
        });
        return { fresh, outcome: "addressed" };
      },
    );
    if (decided.fresh && d.stored) d.stored.n++;
    if (decided.fresh && m.chatType !== "dm") d.heard?.(m);
    if (decided.outcome !== "addressed") {
      if (decided.outcome === "too-old")
        d.logger.debug(
          { component: "inbound", chatId: m.chatId, messageId: m.messageId },
          "addressed but too old to answer",
        );
      if (decided.refused !== undefined) d.refused?.(m, decided.refused);
      return decided.outcome;
    }
    d.onAddressed?.();
    d.logger.debug({ component: "inbound", chatId: m.chatId, messageId: m.messageId }, "addressed");
    if (isReply) {
      let reply: ReplyContext = { kind: "unknown", id: m.replyToId! };
      try {
        reply = await fetchReply();
      } finally {
        // Whatever happened, release the waiting task (without a quote if the fetch broke). The
        // message is stored and planned already: a failure here (a busy database) costs the
        // quote at most — the task stops waiting for it after 10 s anyway.
        try {
          d.attachReply(m.chatId, m.messageId, reply);
        } catch (e) {
          d.logger.warn(
            {
              component: "inbound",
              chatId: m.chatId,
              messageId: m.messageId,
              err: errorMessage(e),
            },
            "could not attach the reply context; answering without it",
          );
        }
      }
    }
    return "addressed";
  };
}

/**
 * Store one inbound message (and its chat, for a group): the one insert every message pays,
 * joining the open group commit. False when it was stored already.
 */
function storeMessage(d: InboundPipelineDeps, m: InboundMessage): boolean {
  if (m.chatType !== "dm") {
    d.chats.upsert({
      chatId: m.chatId,
      chatType: m.chatType,
      ...(m.accessHash !== undefined ? { accessHash: m.accessHash } : {}),
      ...(m.chatTitle !== undefined ? { title: m.chatTitle } : {}),
      ...(m.chatUsername !== undefined ? { username: m.chatUsername } : {}),
    });
  }
  const standIns = d.standIns;
  if (standIns) {
    const key = `${m.chatId}\u0000${m.senderId}`;
    const standIn = `user ${m.senderId}`;
    if (m.senderName === standIn) standIns.add(key);
    else if (standIns.size > 0 && standIns.delete(key))
      d.messages.renameSender(m.chatId, m.senderId, standIn, m.senderName);
  }
  // Mention entities are kept for the prompt's references; a message without entities costs nothing more.
  const mentions = m.entities.length > 0 ? mentionEntities(m.entities) : undefined;
  return d.messages.insert({
    chatId: m.chatId,
    messageId: m.messageId,
    senderId: m.senderId,
    senderName: m.senderName,
    date: m.date,
    text: m.text,
    isAgent: false,
    ...(m.replyToId !== undefined ? { replyToId: m.replyToId } : {}),
    ...(m.topicId !== undefined ? { topicId: m.topicId } : {}),
    ...(mentions !== undefined ? { mentions } : {}),
    ...(m.quoteText !== undefined ? { quote: m.quoteText } : {}),
    ...(m.replyElsewhere ? { replyElsewhere: true } : {}),
    ...(m.media ? { media: m.media } : {}),
  });
}
