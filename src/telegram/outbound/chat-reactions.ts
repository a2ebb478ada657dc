/**
 * What each chat lets the persona react with, from the full chat's `available_reactions`
 * (channels.getFullChannel / messages.getFullChat), fetched the first time a plan or a reaction
 * needs it and cached until Telegram says the chat changed (`updateChannel` / `updateChat`,
 * live or in a difference) or a reaction is refused (REACTION_INVALID). Private chats allow every
 * standard reaction and cost no request. Only answers for the persona (planning, reacting) pay
 * the one request per chat; the inbound path never does.
 */
import type { Logger } from "pino";
import { Api, type TelegramClient } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { systemClock } from "../../base/clock";
import { withTimeout } from "../../base/timeout";
import type { ChatInfo } from "../../store/chats";
import type { AllowedReactions } from "../../base/standard-reactions";

/** Bound on the full-chat request (real time: it bounds network I/O, like the reply fetch). */
const FULL_CHAT_TIMEOUT_MS = 5_000;

const ALL: AllowedReactions = { kind: "all" };

export interface ChatReactionsOptions {
  readonly client: TelegramClient;
  readonly lookupChat: (chatId: string) => ChatInfo | undefined;
  readonly logger: Logger;
  readonly timeoutMs?: number;
}

/** Telegram's `available_reactions` as what the persona may use (absent: everything standard). */
function allowedReactionsOf(r: Api.TypeChatReactions | undefined | null): AllowedReactions {
  if (r instanceof Api.ChatReactionsNone) return { kind: "none" };
  if (r instanceof Api.ChatReactionsSome) {
    return {
      kind: "some",
      emoji: r.reactions.flatMap((x) => (x instanceof Api.ReactionEmoji ? [x.emoticon] : [])),
    };
  }
  return ALL;
}

export class ChatReactions {
  private readonly cache = new Map<string, Promise<AllowedReactions | undefined>>();

  constructor(private readonly o: ChatReactionsOptions) {}

  /** What `chatId` allows; undefined when it could not be learned now (nothing is cached then). */
  allowed(chatId: string): Promise<AllowedReactions | undefined> {
    if (!chatId.startsWith("-")) return Promise.resolve(ALL); // a private chat
    let p = this.cache.get(chatId);
    if (!p) {
      p = this.fetch(chatId).catch((err: unknown) => {
        this.o.logger.debug(
          { component: "telegram", chatId, err: String(err) },
          "could not learn the chat's allowed reactions",
        );
        this.cache.delete(chatId);
        return undefined;
      });
      this.cache.set(chatId, p);
    }
    return p;
  }

  /** Telegram said the chat (or its full info) changed: ask again next time. */
  forget(chatId: string): void {
    this.cache.delete(chatId);
  }

  private async fetch(chatId: string): Promise<AllowedReactions> {
    let req: Api.channels.GetFullChannel | Api.messages.GetFullChat;
    if (chatId.startsWith("-100")) {
      const hash = this.o.lookupChat(chatId)?.accessHash;
      if (hash === undefined) throw new Error(`no access hash for ${chatId}`);
      req = new Api.channels.GetFullChannel({
        channel: new Api.InputChannel({
          channelId: returnBigInt(chatId.slice(4)),
          accessHash: returnBigInt(hash),
        }),
      });
    } else {
      req = new Api.messages.GetFullChat({ chatId: returnBigInt(chatId.slice(1)) });
    }
    const ms = this.o.timeoutMs ?? FULL_CHAT_TIMEOUT_MS;
    // Real time, not the runtime's clock: this bounds network I/O.
    const res = await withTimeout(this.o.client.invoke(req), ms, req.className, systemClock);
    return allowedReactionsOf(res.fullChat.availableReactions);
  }
}

/** The chat of an `updateChannel` / `updateChat` (its info or full info changed), else undefined. */
export function changedChat(u: unknown): string | undefined {
  if (u instanceof Api.UpdateChannel) return `-100${u.channelId.toString()}`;
  if (u instanceof Api.UpdateChat) return `-${u.chatId.toString()}`;
  return undefined;
}
