import type { Logger } from "pino";
import type { MessageStore } from "../store/messages";
import type { Reactor, ReactionStore } from "../store/reactions";

/** What an update says about the reactions on one message, platform-neutral. */
export interface ReactionChange {
  readonly chatId: string;
  readonly messageId: number;
  /**
   * Who reacted how, newest first, when the update names them (private chats and groups);
   * undefined when it only counts (e.g. a `min` summary).
   */
  readonly reactors?: readonly Reactor[];
  /** How many reactions each emoji has now (custom and paid reactions left out). */
  readonly counts: ReadonlyMap<string, number>;
}

export type ReactionChangeHandler = (c: ReactionChange) => void;

/**
 * Reactions to the persona's own messages are kept (one point read to know whose message it is,
 * then the message's set is replaced by what the update says: removed reactions disappear).
 * Reactions to anyone else's message are not needed and cost no write — Telegram pushes them only
 * to the author anyway. No request, no LLM call: a reaction never makes the persona answer; it
 * shows in the history of the next plan.
 */
export function createReactionHandler(d: {
  readonly messages: MessageStore;
  readonly reactions: ReactionStore;
  readonly logger: Logger;
  /** Someone reacted to one of her messages (sent at `date`): how she is received (reception.ts). */
  readonly reacted?: (chatId: string, date: number, emoji: string) => void;
}): ReactionChangeHandler {
  return (c) => {
    const own = d.messages.get(c.chatId, c.messageId);
    if (own?.isAgent !== true) return;
    const { reactors } = c;
    const emoji = reactors?.find((r) => !r.isAgent)?.emoji ?? [...c.counts].find(([, n]) => n > 0)?.[0];
    if (emoji !== undefined) d.reacted?.(c.chatId, own.date, emoji);
    if (reactors === undefined) {
      d.reactions.retainCounted(
        c.chatId,
        c.messageId,
        new Set([...c.counts].filter(([, n]) => n > 0).map(([e]) => e)),
      );
      return;
    }
    d.reactions.replace(c.chatId, c.messageId, withUnlisted(d.reactions, c, reactors));
    d.logger.debug(
      { component: "inbound", chatId: c.chatId, messageId: c.messageId, reactions: reactors.length },
      "reactions changed",
    );
  };
}

/**
 * Telegram names the *recent* reactors; when the counts say there are more, the reactors stored
 * earlier whose emoji still has an unnamed count are kept.
 */
function withUnlisted(
  store: ReactionStore,
  c: ReactionChange,
  reactors: readonly Reactor[],
): readonly Reactor[] {
  let total = 0;
  for (const n of c.counts.values()) total += n;
  if (total <= reactors.length) return reactors;
  const spare = new Map(c.counts);
  for (const r of reactors) spare.set(r.emoji, (spare.get(r.emoji) ?? 0) - 1);
  const listed = new Set(reactors.map((r) => r.reactorId));
  const out = [...reactors];
  for (const old of store.forMessage(c.chatId, c.messageId)) {
    const left = spare.get(old.emoji) ?? 0;
    if (listed.has(old.reactorId) || left <= 0) continue;
    spare.set(old.emoji, left - 1);
    out.push(old);
  }
  return out;
}
