/**
 * The owner blocks or unblocks someone in another Telegram app: the account's blocklist changes
 * and Telegram pushes `updatePeerBlocked` (`blocked` set when blocked, absent when unblocked; the
 * main blocklist: `blocked_my_stories_from` absent) to the account's sessions, with the user.
 * It moves no pts: a missed one is not replayed by getDifference here (docs/telegram-facts.md
 * "Blocking someone elsewhere").
 */
import { Api } from "telegram";
import type { TlViews } from "./tl-views";
import type { EmuUser, PreparedDelivery } from "./types";
import type { World } from "./world";

export function blockedElsewhere(
  world: World,
  views: TlViews,
  account: EmuUser,
  user: EmuUser,
  blocked: boolean,
  nowMs: number,
): PreparedDelivery {
  const box = world.mailbox(account.id);
  if (blocked) box.blocked.add(user.id);
  else box.blocked.delete(user.id);
  return {
    account,
    updates: new Api.Updates({
      updates: [
        new Api.UpdatePeerBlocked({
          peerId: new Api.PeerUser({ userId: views.user(user, account.id).id }),
          ...(blocked ? { blocked: true } : {}),
        }),
      ],
      users: [views.user(user, account.id)],
      chats: [],
      date: Math.floor(nowMs / 1000),
      seq: 0,
    }),
  };
}
