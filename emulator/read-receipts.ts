/**
 * Read receipts the other way round: a member reads a chat, and every account whose messages it
 * read is told — `UpdateReadHistoryOutbox` (moves that account's pts) for DMs and basic groups,
 * `UpdateReadChannelOutbox` (no pts) for supergroups.
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { ChatRecord, StoredMessage } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { PreparedDelivery } from "./types";
import type { World } from "./world";

/**
 * Marks `rec` read by `readerId` up to `upTo` (inclusive) and returns the updates for each member
 * account that sent something in that range (in its own id space).
 */
export function outboxReads(
  world: World,
  views: TlViews,
  rec: ChatRecord,
  readerId: number,
  upTo: StoredMessage,
  nowMs: number,
): PreparedDelivery[] {
  const out: PreparedDelivery[] = [];
  for (const account of world.memberAccounts(rec)) {
    if (account.id === readerId) continue;
    // The newest message of this account the reader has now seen, in the account's id space.
    let maxId = 0;
    for (const m of rec.messages) {
      if (m.serial > upTo.serial) break;
      if (m.fromId === account.id && !m.deleted) maxId = Math.max(maxId, world.idFor(m, account.id) ?? 0);
    }
    if (maxId === 0 || maxId <= (rec.readOutbox.get(account.id) ?? 0)) continue;
    rec.readOutbox.set(account.id, maxId);
    let update: Api.TypeUpdate;
    if (rec.chat.kind === "supergroup") {
      update = new Api.UpdateReadChannelOutbox({ channelId: toLong(rec.chat.id), maxId });
    } else {
      const peer = views.peer(rec, account.id);
      const ev = world.advanceAccountPts(
        account.id,
        1,
        nowMs,
        (_v, pts, ptsCount) => new Api.UpdateReadHistoryOutbox({ peer, maxId, pts, ptsCount }),
      );
      update = new Api.UpdateReadHistoryOutbox({ peer, maxId, pts: ev.pts, ptsCount: ev.ptsCount });
    }
    const bag = views.entitiesFor([], account, [rec]);
    out.push({
      account,
      updates: new Api.Updates({
        updates: [update],
        users: bag.users,
        chats: bag.chats,
        date: Math.floor(nowMs / 1000),
        seq: 0,
      }),
    });
  }
  return out;
}
