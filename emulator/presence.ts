/**
 * Online status ("last seen"), as Telegram keeps it: an account says it is online or offline with
 * `account.updateStatus`; online lasts until it expires (Telegram's server lets it lapse about five
 * minutes after the last update — clients renew it while open: TDLib every
 * `online_update_period_ms`, mtcute every 4 minutes), then the user is "last seen" at that time.
 * Others see it in the user objects they receive (`status`: `userStatusOnline{expires}` /
 * `userStatusOffline{was_online}`) and, when the user is in their contacts, by an
 * `updateUserStatus` push. A user that never sent a status shows `userStatusRecently` (as before).
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { EmuUser, StatusRecord } from "./types";
import type { World } from "./world";

/** How long an online status lasts without a renewal (s). */
const ONLINE_EXPIRES_SEC = 300;

/** A user's status as others see it at an instant (times in ms). */
export type PresenceView =
  | { readonly state: "online"; readonly expires: number }
  | { readonly state: "offline"; readonly wasOnline: number }
  /** Never set: Telegram shows "last seen recently". */
  | { readonly state: "recently" };

/** The status `userId` shows at `nowMs`, from the latest updateStatus it sent. */
export function presenceOf(world: World, userId: number, nowMs: number): PresenceView {
  const last = world.latestStatus.get(userId);
  if (!last) return { state: "recently" };
  if (last.offline) return { state: "offline", wasOnline: last.at };
  const expires = last.at + ONLINE_EXPIRES_SEC * 1000;
  return nowMs < expires ? { state: "online", expires } : { state: "offline", wasOnline: expires };
}

/** The TL status of a presence (seconds, as Telegram sends it). */
export function statusTl(p: PresenceView): Api.TypeUserStatus {
  if (p.state === "online") return new Api.UserStatusOnline({ expires: Math.floor(p.expires / 1000) });
  if (p.state === "offline") return new Api.UserStatusOffline({ wasOnline: Math.floor(p.wasOnline / 1000) });
  return new Api.UserStatusRecently({});
}

/** `updateUserStatus` for `user` as it is now. */
export function statusUpdate(world: World, user: EmuUser, nowMs: number): Api.UpdateShort {
  return new Api.UpdateShort({
    update: new Api.UpdateUserStatus({
      userId: toLong(user.id),
      status: statusTl(presenceOf(world, user.id, nowMs)),
    }),
    date: Math.floor(nowMs / 1000),
  });
}

/** `emu.presence`: what accounts said about being online, and what others see of it. */
export class Presence {
  constructor(
    private readonly world: World,
    private readonly now: () => number,
  ) {}

  /** The status `user` shows to others now. */
  of(user: EmuUser): PresenceView {
    return presenceOf(this.world, user.id, this.now());
  }

  /** Every `account.updateStatus` sent (by one account), in order. */
  log(account?: EmuUser): readonly StatusRecord[] {
    return account === undefined
      ? [...this.world.statuses]
      : this.world.statuses.filter((s) => s.account.id === account.id);
  }
}
