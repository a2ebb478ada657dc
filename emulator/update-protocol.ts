/**
 * The update protocol as a test sees it (`emu.updates`): an account's and a channel's pts as the
 * server holds them, and the pushes that tell a client to fetch a difference. The state itself
 * is pts-log.ts; the difference methods are methods/update-state.ts.
 */
import { Api } from "telegram";
import { toLong } from "./long";
import type { MessageBus } from "./message-bus";
import type { TlViews } from "./tl-views";
import type { EmuChat, EmuUpdateState, EmuUser } from "./types";
import type { World } from "./world";

export interface UpdateProtocolDeps {
  readonly world: World;
  readonly views: TlViews;
  readonly bus: MessageBus;
  readonly now: () => number;
}

export class UpdateProtocol {
  constructor(private readonly deps: UpdateProtocolDeps) {}

  /** The server's update state of `account` (what updates.GetState would answer, date aside). */
  state(account: EmuUser): EmuUpdateState {
    const box = this.deps.world.mailbox(account.id);
    return { pts: box.pts.pts, qts: box.qts, seq: box.seq, date: box.pts.date };
  }

  /** The current pts of a supergroup. */
  channelPts(chat: EmuChat): number {
    if (chat.kind !== "supergroup") throw new Error(`emulator: ${chat.peerId} is not a supergroup`);
    return this.deps.world.record(chat).pts.pts;
  }

  /**
   * Pushes `updateChannelTooLong` for `chat` to `account` (Telegram's "this channel has a gap,
   * call getChannelDifference"). Its pts is where a client without the channel's state should
   * start: `o.pts`, else the point the account joined (`emu.chats.addMember` after creation), else
   * the channel's current pts. Resolves after the handlers ran. When it cannot reach the client
   * (no client attached — the process is down —, a dead link, a silenced session), it is kept for
   * the account's next complete updates.getDifference, which carries it in `other_updates` with
   * the channel in `chats` — as Telegram tells a client that was away about channels it should fetch.
   */
  pushChannelTooLong(account: EmuUser, chat: EmuChat, o: { pts?: number } = {}): Promise<void> {
    const { world, views, bus } = this.deps;
    const rec = world.record(chat);
    if (chat.kind !== "supergroup") throw new Error(`emulator: ${chat.peerId} is not a supergroup`);
    const pts = o.pts ?? rec.joinedPts.get(account.id) ?? rec.pts.pts;
    const update = new Api.UpdateChannelTooLong({ channelId: toLong(chat.id), pts });
    const bag = views.entitiesFor([], account, [rec]);
    return bus.deliverOrKeep(
      account,
      new Api.Updates({
        updates: [update],
        users: bag.users,
        chats: bag.chats,
        date: Math.floor(this.deps.now() / 1000),
        seq: 0,
      }),
      { update, chats: [rec] },
    );
  }
}
