/**
 * What happens to messages after they exist: edits and deletions (which move pts, so a client
 * that missed them gets them from getDifference), and other users' typing (which does not).
 * Each builds the update every attached member account receives and hands it to the bus.
 */
import { Api } from "telegram";
import { toLong } from "./long";
import { normaliseEntities } from "./mentions";
import type { MessageBus } from "./message-bus";
import { userForInputUser } from "./methods/resolve-peer";
import type { ChatRecord, StoredMessage } from "./stored-message";
import type { TlViews } from "./tl-views";
import type { EmuUser } from "./types";
import type { World } from "./world";

export interface MessageChangesDeps {
  readonly world: World;
  readonly views: TlViews;
  readonly bus: MessageBus;
  /** Attached accounts (live view). */
  readonly attached: () => Iterable<EmuUser>;
  readonly now: () => number;
}

/** The chat actions `userTyping` can show, by name. */
const TYPING_ACTIONS = {
  typing: () => new Api.SendMessageTypingAction(),
  cancel: () => new Api.SendMessageCancelAction(),
  sticker: () => new Api.SendMessageChooseStickerAction(),
  recordVoice: () => new Api.SendMessageRecordAudioAction(),
} as const;
export type TypingAction = keyof typeof TYPING_ACTIONS;

export class MessageChanges {
  constructor(private readonly d: MessageChangesDeps) {}

  /**
   * Replaces a message's text (as its author did in the app): one pts per account (DMs, basic
   * groups) or per channel, and UpdateEditMessage / UpdateEditChannelMessage to attached members.
   */
  async edit(
    rec: ChatRecord,
    msg: StoredMessage,
    text: string,
    entities?: readonly Api.TypeMessageEntity[],
  ): Promise<void> {
    const { world, views } = this.d;
    if (msg.deleted)
      throw new Error(`emulator: message ${world.referenceId(msg)} of ${rec.chat.peerId} is deleted`);
    if (msg.service) throw new Error(`emulator: a service message cannot be edited`);
    const author = world.user(msg.fromId);
    msg.text = text;
    msg.entities = normaliseEntities(text, entities, (u) =>
      author ? userForInputUser(world, author, u)?.id : undefined,
    );
    msg.editDate = this.d.now();
    const build = (viewer: EmuUser, pts: number, ptsCount: number): Api.TypeUpdate =>
      rec.chat.kind === "supergroup"
        ? new Api.UpdateEditChannelMessage({ message: views.message(msg, viewer), pts, ptsCount })
        : new Api.UpdateEditMessage({ message: views.message(msg, viewer), pts, ptsCount });
    await this.fanOut(rec, [msg], 1, build, true);
  }

  /**
   * The server finished the preview of `page`, which `msgs` showed as pending: `updateWebPage`
   * (the account's pts) / `updateChannelWebPage` (the channel's pts) once per member account, or
   * with `via: "edit"` an edit update of each message carrying the finished preview (no edit_date:
   * the author edited nothing).
   */
  async previewReady(
    rec: ChatRecord,
    msgs: StoredMessage[],
    webpage: () => Api.TypeWebPage,
    via: "update" | "edit",
  ): Promise<void> {
    const { views } = this.d;
    const live = msgs.filter((m) => !m.deleted);
    if (live.length === 0) return;
    if (via === "update") {
      const build = (_viewer: EmuUser, pts: number, ptsCount: number): Api.TypeUpdate =>
        rec.chat.kind === "supergroup"
          ? new Api.UpdateChannelWebPage({
              channelId: toLong(rec.chat.id),
              webpage: webpage(),
              pts,
              ptsCount,
            })
          : new Api.UpdateWebPage({ webpage: webpage(), pts, ptsCount });
      await this.fanOut(rec, live, 1, build, false, (a) =>
        live.some((m) => this.d.world.idFor(m, a.id) !== undefined),
      );
      return;
    }
    for (const msg of live) {
      const build = (viewer: EmuUser, pts: number, ptsCount: number): Api.TypeUpdate =>
        rec.chat.kind === "supergroup"
          ? new Api.UpdateEditChannelMessage({ message: views.message(msg, viewer), pts, ptsCount })
          : new Api.UpdateEditMessage({ message: views.message(msg, viewer), pts, ptsCount });
      await this.fanOut(rec, [msg], 1, build, true);
    }
  }

  /**
   * Deletes messages for everyone: UpdateDeleteMessages (each account's own ids, one pts per
   * message) or UpdateDeleteChannelMessages (channel ids, the channel's pts).
   */
  async delete(rec: ChatRecord, msgs: StoredMessage[]): Promise<void> {
    const live = msgs.filter((m) => !m.deleted);
    if (live.length === 0) return;
    const { world } = this.d;
    // Ids as each viewer knew them, taken before they vanish from its view.
    const idsOf = (viewer: EmuUser) =>
      live.map((m) => world.idFor(m, viewer.id)).filter((id): id is number => id !== undefined);
    const ids = new Map<number, number[]>();
    for (const a of world.memberAccounts(rec)) ids.set(a.id, idsOf(a));
    for (const m of live) m.deleted = true;
    const build = (viewer: EmuUser, pts: number, ptsCount: number): Api.TypeUpdate =>
      rec.chat.kind === "supergroup"
        ? new Api.UpdateDeleteChannelMessages({
            channelId: toLong(rec.chat.id),
            messages: ids.get(viewer.id) ?? idsOf(viewer),
            pts,
            ptsCount,
          })
        : new Api.UpdateDeleteMessages({ messages: ids.get(viewer.id) ?? [], pts, ptsCount });
    await this.fanOut(rec, live, live.length, build, false, (a) => (ids.get(a.id)?.length ?? 0) > 0);
  }

  /**
   * `user` shows a chat action (typing…) in `rec`: UpdateUserTyping (DM), UpdateChatUserTyping
   * (basic group) or UpdateChannelUserTyping (supergroup; `topicId` → top_msg_id in forums).
   * No pts: a missed typing update is simply gone. Lasts ~6 s in clients unless repeated.
   */
  async typing(
    rec: ChatRecord,
    user: EmuUser,
    action: TypingAction,
    topicId: number | undefined,
  ): Promise<void> {
    if (!rec.members.has(user.id))
      throw new Error(`emulator: ${user.firstName} is not a member of ${rec.chat.peerId}`);
    if (topicId !== undefined && !rec.topics.has(topicId))
      throw new Error(`emulator: no topic ${topicId} in ${rec.chat.peerId}`);
    const from = new Api.PeerUser({ userId: toLong(user.id) });
    const update = (): Api.TypeUpdate => {
      const a = TYPING_ACTIONS[action]();
      if (rec.chat.kind === "dm") return new Api.UpdateUserTyping({ userId: toLong(user.id), action: a });
      if (rec.chat.kind === "group")
        return new Api.UpdateChatUserTyping({ chatId: toLong(rec.chat.id), fromId: from, action: a });
      return new Api.UpdateChannelUserTyping({
        channelId: toLong(rec.chat.id),
        fromId: from,
        action: a,
        ...(topicId !== undefined ? { topMsgId: topicId } : {}),
      });
    };
    const deliveries: Promise<void>[] = [];
    for (const account of this.d.attached()) {
      if (account.id === user.id || !rec.members.has(account.id)) continue;
      deliveries.push(this.d.bus.deliver(account, this.envelope([update()], [], account, rec)));
    }
    await Promise.all(deliveries);
  }

  /**
   * Advance the pts (the channel's once, or each member account's) and deliver the update built
   * for each attached member account that can see the change.
   */
  private async fanOut(
    rec: ChatRecord,
    msgs: StoredMessage[],
    ptsCount: number,
    build: (viewer: EmuUser, pts: number, ptsCount: number) => Api.TypeUpdate,
    withEntities: boolean,
    sees: (account: EmuUser) => boolean = (a) => msgs.every((m) => this.d.world.idFor(m, a.id) !== undefined),
  ): Promise<void> {
    const { world } = this.d;
    const now = this.d.now();
    const ptsOf = new Map<number, number>();
    if (rec.chat.kind === "supergroup") {
      const ev = world.advanceChannelPts(rec, ptsCount, now, build);
      for (const a of world.memberAccounts(rec)) ptsOf.set(a.id, ev.pts);
    } else {
      for (const a of world.memberAccounts(rec)) {
        if (!sees(a)) continue;
        ptsOf.set(a.id, world.advanceAccountPts(a.id, ptsCount, now, build).pts);
      }
    }
    const deliveries: Promise<void>[] = [];
    for (const account of this.d.attached()) {
      const pts = ptsOf.get(account.id);
      if (pts === undefined || !rec.members.has(account.id)) continue;
      deliveries.push(
        this.d.bus.deliver(
          account,
          this.envelope([build(account, pts, ptsCount)], withEntities ? msgs : [], account, rec),
        ),
      );
    }
    await Promise.all(deliveries);
  }

  private envelope(
    updates: Api.TypeUpdate[],
    msgs: StoredMessage[],
    viewer: EmuUser,
    rec: ChatRecord,
  ): Api.Updates {
    const bag = msgs.length
      ? this.d.views.entitiesFor(msgs, viewer)
      : this.d.views.entitiesFor([], viewer, [rec]);
    return new Api.Updates({
      updates,
      users: bag.users,
      chats: bag.chats,
      date: Math.floor(this.d.now() / 1000),
      seq: 0,
    });
  }
}
