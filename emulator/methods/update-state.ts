/**
 * Telegram's update-state methods: updates.GetState, updates.GetDifference (difference, slice,
 * empty, too long) and updates.GetChannelDifference (difference, empty, too long), answered from
 * the pts event logs (see pts-log.ts) with the limits in `ctx.limits`. A complete difference also
 * carries the updates without pts kept while the account was offline (Mailbox.offline).
 */
import { Api } from "telegram";
import { RpcFault } from "../rpc-fault";
import { toLong } from "../long";
import type { ChatRecord, StoredMessage, StoredPtsEvent } from "../stored-message";
import { defineMethod, type MethodContext } from "./method";
import { chatForInputChannel } from "./resolve-peer";

export const getState = defineMethod("updates.GetState", Api.updates.GetState, (ctx) => {
  const box = ctx.world.mailbox(ctx.account.id);
  // A client that takes the current state starts from now: nothing before it is named later.
  box.channelNews.clear();
  return new Api.updates.State({
    pts: box.pts.pts,
    qts: box.qts,
    date: seconds(ctx.now),
    seq: box.seq,
    unreadCount: 0,
  });
});

export const getDifference = defineMethod("updates.GetDifference", Api.updates.GetDifference, (ctx, req) => {
  const box = ctx.world.mailbox(ctx.account.id);
  const log = box.pts;
  if (req.pts > log.pts) throw new RpcFault("PERSISTENT_TIMESTAMP_INVALID");
  const gap = log.gap(req.pts);
  // Updates kept while the account was offline (no pts of their own) and the channels with news
  // it missed come with the final answer.
  const offline = box.offline;
  if (gap === 0 && offline.length === 0 && box.channelNews.size === 0)
    return new Api.updates.DifferenceEmpty({ date: seconds(ctx.now), seq: box.seq });
  // A strictTl request read back from bytes has absent flags as null.
  const totalLimit = req.ptsTotalLimit != null && req.ptsTotalLimit > 0 ? req.ptsTotalLimit : Infinity;
  if (gap > Math.min(ctx.limits.differenceTooLongAfter, totalLimit))
    return new Api.updates.DifferenceTooLong({ pts: log.pts });

  const sliceLimit = req.ptsLimit != null && req.ptsLimit > 0 ? req.ptsLimit : Infinity;
  const events = log.after(req.pts, Math.min(ctx.limits.differenceSlice, sliceLimit));
  const last = events.at(-1);
  const complete = last === undefined || last.pts === log.pts;
  const held = complete ? offline.splice(0) : [];
  const news = complete ? channelNews(ctx) : [];
  const { newMessages, otherUpdates, users, chats } = replay(ctx, events, [
    ...held.flatMap((h) => h.chats),
    ...news.map((n) => n.rec),
  ]);
  otherUpdates.push(...held.map((h) => h.update), ...news.map((n) => n.update));
  const state = new Api.updates.State({
    pts: complete ? log.pts : last.pts,
    qts: box.qts,
    date: complete ? seconds(ctx.now) : last.date,
    seq: box.seq,
    unreadCount: 0,
  });
  const body = { newMessages, newEncryptedMessages: [], otherUpdates, users, chats };
  return complete
    ? new Api.updates.Difference({ ...body, state })
    : new Api.updates.DifferenceSlice({ ...body, intermediateState: state });
});

export const getChannelDifference = defineMethod(
  "updates.GetChannelDifference",
  Api.updates.GetChannelDifference,
  (ctx, req) => {
    const rec = chatForInputChannel(ctx.world, ctx.account, req.channel);
    const log = rec.pts;
    if (req.pts <= 0) throw new RpcFault("PERSISTENT_TIMESTAMP_EMPTY");
    if (req.pts > log.pts) throw new RpcFault("PERSISTENT_TIMESTAMP_INVALID");
    const cap = ctx.limits.channelDifferenceLimit;
    const limit = Math.min(req.limit > 0 ? req.limit : cap, cap);
    const timeout = ctx.limits.channelTimeout;
    const gap = log.gap(req.pts);
    if (gap === 0) return new Api.updates.ChannelDifferenceEmpty({ final: true, pts: log.pts, timeout });

    if (gap > (ctx.limits.channelTooLongAfter ?? limit)) {
      // The client must re-sync: the dialog (with the channel's pts) and the latest messages.
      const latest = ctx.world.visibleMessages(rec, ctx.account.id).slice(-limit).reverse();
      const bag = ctx.views.entitiesFor(latest, ctx.account, [rec]);
      return new Api.updates.ChannelDifferenceTooLong({
        final: true,
        timeout,
        dialog: ctx.views.dialog(rec, ctx.account),
        messages: latest.map((m) => ctx.views.message(m, ctx.account)),
        users: bag.users,
        chats: bag.chats,
      });
    }

    const events = log.after(req.pts, limit);
    const last = events.at(-1);
    const final = last === undefined || last.pts === log.pts;
    const { newMessages, otherUpdates, users, chats } = replay(ctx, events, [rec]);
    return new Api.updates.ChannelDifference({
      final,
      pts: final ? log.pts : last.pts,
      timeout,
      newMessages,
      otherUpdates,
      users,
      chats,
    });
  },
);

/**
 * The channels with news the account missed (Mailbox.channelNews), each as
 * `updateChannelTooLong{channel_id, pts}` with the channel's current pts; the set is emptied.
 * Channels it is no longer in are left out.
 */
function channelNews(ctx: MethodContext): { rec: ChatRecord; update: Api.UpdateChannelTooLong }[] {
  const box = ctx.world.mailbox(ctx.account.id);
  const recs = [...box.channelNews].filter(
    (rec) => rec.members.has(ctx.account.id) && !rec.banned.has(ctx.account.id),
  );
  box.channelNews.clear();
  return recs.map((rec) => ({
    rec,
    update: new Api.UpdateChannelTooLong({ channelId: toLong(rec.chat.id), pts: rec.pts.pts }),
  }));
}

/** The messages and other updates of logged events as the calling account sees them now. */
function replay(
  ctx: MethodContext,
  events: readonly StoredPtsEvent[],
  extraChats: Parameters<MethodContext["views"]["entitiesFor"]>[2] = [],
): {
  newMessages: Api.TypeMessage[];
  otherUpdates: Api.TypeUpdate[];
  users: Api.TypeUser[];
  chats: Api.TypeChat[];
} {
  const messages: StoredMessage[] = [];
  const otherUpdates: Api.TypeUpdate[] = [];
  for (const ev of events) {
    // A message deleted since is not replayed (its deletion is the newer truth).
    if (ev.msg && !ev.msg.deleted) messages.push(ev.msg);
    if (ev.build) otherUpdates.push(ev.build(ctx.account, ev.pts, ev.ptsCount));
  }
  const bag = ctx.views.entitiesFor(messages, ctx.account, extraChats);
  return {
    newMessages: messages.map((m) => ctx.views.message(m, ctx.account)),
    otherUpdates,
    users: bag.users,
    chats: bag.chats,
  };
}

function seconds(ms: number): number {
  return Math.floor(ms / 1000);
}
