/**
 * messages.ReadHistory (DMs, basic groups → AffectedMessages) and channels.ReadHistory
 * (supergroups → Bool). The emulator remembers the highest id each account marked read.
 */
import { Api } from "telegram";
import { RpcFault } from "../rpc-fault";
import type { ChatRecord } from "../stored-message";
import type { EmuUser } from "../types";
import type { World } from "../world";
import { defineMethod } from "./method";
import { chatForInputChannel, chatForInputPeer } from "./resolve-peer";

export const readHistory = defineMethod("messages.ReadHistory", Api.messages.ReadHistory, (ctx, req) => {
  const rec = chatForInputPeer(ctx.world, ctx.account, req.peer, "read");
  // Supergroups must use channels.ReadHistory; Telegram refuses the generic method for them.
  if (rec.chat.kind === "supergroup") throw new RpcFault("PEER_ID_INVALID");
  const maxId = markRead(ctx.world, rec, ctx.account, req.maxId);
  // Reading moves the account's pts: other sessions (and getDifference) learn it as an update.
  const peer = ctx.views.peer(rec, ctx.account.id);
  const ev = ctx.world.advanceAccountPts(
    ctx.account.id,
    1,
    ctx.now,
    (_viewer, pts, ptsCount) =>
      new Api.UpdateReadHistoryInbox({ peer, maxId, stillUnreadCount: 0, pts, ptsCount }),
  );
  return new Api.messages.AffectedMessages({ pts: ev.pts, ptsCount: ev.ptsCount });
});

export const readChannelHistory = defineMethod(
  "channels.ReadHistory",
  Api.channels.ReadHistory,
  (ctx, req) => {
    const rec = chatForInputChannel(ctx.world, ctx.account, req.channel);
    markRead(ctx.world, rec, ctx.account, req.maxId);
    return true;
  },
);

// maxId 0 means "everything"; the mark never moves backwards. Returns the new mark.
function markRead(world: World, rec: ChatRecord, account: EmuUser, maxId: number): number {
  const newest = world.visibleMessages(rec, account.id).at(-1);
  const upTo = maxId > 0 ? maxId : newest ? (world.idFor(newest, account.id) ?? 0) : 0;
  const mark = Math.max(rec.readMax.get(account.id) ?? 0, upTo);
  rec.readMax.set(account.id, mark);
  return mark;
}
