import { Api, utils } from "telegram";
import type { ReactionChange } from "../../inbound/reactions";
import type { Reactor } from "../../store/reactions";

const emojiOf = (r: Api.TypeReaction): string | undefined =>
  r instanceof Api.ReactionEmoji ? r.emoticon : undefined;

/**
 * `updateMessageReactions` → what it says about the message (no API call). Telegram pushes it to
 * the message's author: the counts per emoji and, in private chats and groups, the recent
 * reactors (`my` marks the account's own reaction). Custom-emoji and paid reactions are left out.
 */
export function reactionChange(update: Api.UpdateMessageReactions, selfId: string): ReactionChange {
  const counts = new Map<string, number>();
  for (const c of update.reactions.results) {
    const emoji = emojiOf(c.reaction);
    if (emoji !== undefined) counts.set(emoji, (counts.get(emoji) ?? 0) + c.count);
  }
  const recent = update.reactions.recentReactions;
  let reactors: Reactor[] | undefined;
  if (recent != null) {
    reactors = [];
    for (const r of recent) {
      const emoji = emojiOf(r.reaction);
      if (emoji === undefined) continue;
      const reactorId = utils.getPeerId(r.peerId);
      reactors.push({
        reactorId,
        emoji,
        date: r.date * 1000,
        isAgent: r.my === true || reactorId === selfId,
      });
    }
  }
  return {
    chatId: utils.getPeerId(update.peer),
    messageId: update.msgId,
    counts,
    ...(reactors !== undefined ? { reactors } : {}),
  };
}
