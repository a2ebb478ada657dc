import { Api, utils } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import { captureEntities, inputPeerOf } from "../entities";
import { newestDialogs, type CatchUpSession } from "./catch-up-session";

/** Messages per getHistory page (Telegram's maximum). */
const HISTORY_PAGE = 100;
/** A history backfill above the highest stored message takes at most this many (newest first). */
const MAX_BACKFILL = 1000;

/**
 * Messages above `minId` with `messages.getHistory`, newest page first (from `offsetId`),
 * handed over oldest first. Without `minId` (nothing stored) one page. A next page is read only
 * while the last one was full, its oldest message is still young enough to answer, and fewer
 * than `pages` pages (default: up to MAX_BACKFILL messages) were read. Returns the channel's pts
 * from the answer (`messages.channelMessages`), if it carried one.
 */
export async function history(
  s: CatchUpSession,
  chatId: string,
  minId: number | undefined,
  o: { offsetId?: number; pages?: number } = {},
): Promise<number | undefined> {
  const peer = inputPeerOf(s.o.entities.get(chatId));
  if (!peer) return undefined;
  const all: Api.TypeMessage[] = [];
  const users: Api.TypeUser[] = [];
  const chats: Api.TypeChat[] = [];
  const youngSince = s.telegramNow() - s.maxAnswerAgeMs;
  let pts: number | undefined;
  let offsetId = o.offsetId ?? 0;
  for (let page = 1; ; page++) {
    const res: Api.messages.TypeMessages = await s.invoke(
      new Api.messages.GetHistory({
        peer,
        offsetId,
        offsetDate: 0,
        addOffset: 0,
        limit: HISTORY_PAGE,
        maxId: 0,
        minId: minId ?? 0,
        hash: returnBigInt(0),
      }),
    );
    if (res instanceof Api.messages.MessagesNotModified) break;
    if (res instanceof Api.messages.ChannelMessages) pts ??= res.pts;
    users.push(...res.users);
    chats.push(...res.chats);
    const got = res.messages.filter(
      (m): m is Api.Message | Api.MessageService => !(m instanceof Api.MessageEmpty) && m.id > (minId ?? 0),
    );
    all.push(...got);
    if (minId === undefined || got.length < HISTORY_PAGE || all.length >= MAX_BACKFILL) break;
    if (page >= (o.pages ?? Infinity)) break;
    const oldest = got.reduce((a, b) => (b.id < a.id ? b : a));
    if (oldest.date * 1000 < youngSince) break;
    offsetId = oldest.id;
  }
  await s.feedAll(all, users, chats);
  return pts;
}

/**
 * DMs and basic groups after a `differenceTooLong`: the newest dialogs (one getDialogs page,
 * so new chats — a DM from someone never seen — are found too), each whose top message is above
 * what is stored backfilled from there (nothing stored: its newest page). Supergroups catch up
 * through their own boxes. Without an answer, the chats with stored messages.
 */
export async function commonHistory(s: CatchUpSession): Promise<void> {
  let chats: { chatId: string; top: number }[] | undefined;
  try {
    const res = await s.invoke(newestDialogs());
    if (!(res instanceof Api.messages.DialogsNotModified)) {
      captureEntities(s.o.entities, [...res.users, ...res.chats]);
      chats = res.dialogs
        .filter((d): d is Api.Dialog => d instanceof Api.Dialog && !(d.peer instanceof Api.PeerChannel))
        .map((d) => ({ chatId: utils.getPeerId(d.peer), top: d.topMessage }));
    }
  } catch (err) {
    s.o.logger.warn(
      { component: "catch-up", err: String(err) },
      "getDialogs failed; backfilling chats with stored messages",
    );
  }
  chats ??= s.o.commonChats().map((chatId) => ({ chatId, top: Number.MAX_SAFE_INTEGER }));
  for (const { chatId, top } of chats) {
    const highest = s.o.highestId(chatId);
    if (highest !== undefined && top <= highest) continue;
    try {
      await history(s, chatId, highest);
    } catch (err) {
      s.o.logger.warn({ component: "catch-up", chatId, err: String(err) }, "history backfill failed");
    }
  }
}
