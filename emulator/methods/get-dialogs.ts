/**
 * messages.GetDialogs: the account's chats, newest top message first, paged the way GramJS's
 * iterDialogs pages (offsetPeer, else offsetDate/offsetId), at most 100 per call, with each
 * dialog's top message, the users and chats they need, and the channel pts of supergroups and
 * broadcast channels (a subscribed channel is a dialog too, as in Telegram; chats the account
 * left or was removed from are not).
 */
import { Api } from "telegram";
import type { ChatRecord, StoredMessage } from "../stored-message";
import { defineMethod, type MethodContext } from "./method";
import { chatForInputPeer } from "./resolve-peer";

// Telegram returns at most 100 dialogs per call.
const MAX_LIMIT = 100;
// The archive folder; the emulator archives nothing.
const ARCHIVE_FOLDER = 1;

interface Entry {
  readonly rec: ChatRecord;
  readonly top: StoredMessage | undefined;
  /** Unix seconds of the top message (of the chat's creation when it has none). */
  readonly date: number;
  readonly topId: number;
}

export const getDialogs = defineMethod("messages.GetDialogs", Api.messages.GetDialogs, (ctx, req) => {
  const { world, views, account } = ctx;
  if (req.folderId === ARCHIVE_FOLDER)
    return new Api.messages.Dialogs({ dialogs: [], messages: [], chats: [], users: [] });
  const entries: Entry[] = [];
  for (const rec of world.chatsOf(account.id)) {
    const top = world.visibleMessages(rec, account.id).at(-1);
    // A DM nobody wrote in is not a dialog yet.
    if (!top && rec.chat.kind === "dm") continue;
    entries.push({
      rec,
      top,
      date: top ? Math.floor(top.date / 1000) : rec.createdAt,
      topId: top ? (world.idFor(top, account.id) ?? 0) : 0,
    });
  }
  entries.sort((a, b) => b.date - a.date || (b.top?.serial ?? 0) - (a.top?.serial ?? 0));

  let start = 0;
  const after = offsetPeerRecord(ctx, req.offsetPeer);
  const at = after ? entries.findIndex((e) => e.rec === after) : -1;
  if (at >= 0) start = at + 1;
  else if (req.offsetDate > 0) {
    start = entries.findIndex(
      (e) =>
        e.date < req.offsetDate || (e.date === req.offsetDate && req.offsetId > 0 && e.topId < req.offsetId),
    );
    if (start < 0) start = entries.length;
  }
  const limit = Math.min(req.limit > 0 ? req.limit : MAX_LIMIT, MAX_LIMIT);
  const page = entries.slice(start, start + limit);

  const tops = page.flatMap((e) => (e.top ? [e.top] : []));
  const bag = views.entitiesFor(
    tops,
    account,
    page.map((e) => e.rec),
  );
  const body = {
    dialogs: page.map((e) => views.dialog(e.rec, account)),
    messages: tops.map((m) => views.message(m, account)),
    chats: bag.chats,
    users: bag.users,
  };
  if (start === 0 && page.length === entries.length) return new Api.messages.Dialogs(body);
  return new Api.messages.DialogsSlice({ count: entries.length, ...body });
});

/** The chat `offsetPeer` names, if it is one of the account's (InputPeerEmpty: none). */
function offsetPeerRecord(ctx: MethodContext, peer: unknown): ChatRecord | undefined {
  if (peer == null || peer instanceof Api.InputPeerEmpty) return undefined;
  try {
    return chatForInputPeer(ctx.world, ctx.account, peer, "read");
  } catch {
    return undefined;
  }
}
