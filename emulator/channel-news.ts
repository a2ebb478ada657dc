/**
 * Channels with news an account's session missed, and supergroups too big to be pushed.
 *
 * Telegram's update docs ("Recovering gaps"): at start a client calls only
 * `updates.getDifference`; it does not call `getChannelDifference` for every channel — the
 * difference carries one `updateChannelTooLong` for each channel that needs catching up. The
 * emulator names a channel there when its pts moved (a message, an edit, a deletion) while a
 * member account could not be pushed the update (no client attached, a dead link, a silenced
 * session, an overflowing queue): the account's next complete difference carries
 * `updateChannelTooLong{channel_id, pts}` with the channel's pts as the server has it (TDLib's
 * `on_update_channel_too_long` fetches when that pts is above its own), once. `updates.getState`
 * forgets them: a client that takes the current state starts from now.
 *
 * Big supergroups are not pushed in real time (a TDLib maintainer, tdlib/td#2695: "messages in
 * big chats aren't expected to be received in real time"; Telegram publishes no member count):
 * above `UpdateLimits.pushedMembersMax` members a new message reaches members only through
 * `updates.getChannelDifference` — never pushed, and never named in a difference.
 */
import type { ChatRecord } from "./stored-message";
import type { UpdateLimits } from "./types";
import type { World } from "./world";

/** True when new messages of `rec` are pushed to its members (DMs, basic groups, supergroups up to the limit). */
export function pushedLive(rec: ChatRecord, limits: Pick<UpdateLimits, "pushedMembersMax">): boolean {
  return rec.chat.kind !== "supergroup" || rec.members.size <= limits.pushedMembersMax;
}

/**
 * `rec`'s pts moved: each member account that cannot be pushed now (`reachable` false) gets it
 * named in its next complete getDifference (Mailbox.channelNews). Big supergroups are never named.
 */
export function noteChannelNews(
  world: World,
  rec: ChatRecord,
  limits: Pick<UpdateLimits, "pushedMembersMax">,
  reachable: (accountId: number) => boolean,
): void {
  if (!pushedLive(rec, limits)) return;
  for (const id of rec.members) {
    if (!world.user(id)?.isAccount || rec.banned.has(id) || reachable(id)) continue;
    world.mailbox(id).channelNews.add(rec);
  }
}
