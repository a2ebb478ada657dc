import type { Logger } from "pino";
import { Api, type TelegramClient } from "telegram";
import { NewMessage } from "telegram/events/index.js";
import { Raw } from "telegram/events/Raw.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describeDbFailure, mustWait } from "../../store/db";
import type { EntityRecord, EntityStore } from "../../store/entities";
import { GateClosedError, type WriteGate } from "../../store/write-gate";
import { ACCOUNT_BOX } from "../../store/update-state";
import type { ReactionChangeHandler } from "../../inbound/reactions";
import { changedChat } from "../outbound/chat-reactions";
import { captureEntities, observeDefaultBans } from "../entities";
import { reactionChange } from "./listen-reactions";
import type { MessageFeed } from "./message-feed";
import type { GramMessage } from "./parse";
import type { PtsInfo } from "./sender-resolver";
import type { TypingWatch } from "./typing-watch";
import type { UpdateTracker } from "./update-tracker";

export type { TelegramClient } from "telegram";

export interface ListenOptions {
  readonly client: TelegramClient;
  readonly feed: MessageFeed;
  readonly entities: EntityStore;
  readonly tracker: UpdateTracker;
  readonly selfId: string;
  readonly logger: Logger;
  /** Where other people's typing updates go (a Map update each; nothing else is done with them). */
  readonly typing?: TypingWatch;
  /** Reactions on messages (updateMessageReactions: no pts, never a message). */
  readonly reactions?: ReactionChangeHandler;
  /** A chat or its full info changed (updateChat / updateChannel: no pts, never a message). */
  readonly chatChanged?: (chatId: string) => void;
  /** While the database is busy, what arrives waits here in order (store/write-gate.ts). */
  readonly gate?: WriteGate;
  /** The database file, named by every database error logged here. */
  readonly dbFile?: string;
}

type WithEntities = { _entities?: Map<string, Api.TypeUser | Api.TypeChat> };

/** Where an update's pts counts: the account's common box or a channel's ("-100<id>"). */
function ptsBox(
  update: Api.TypeUpdate | Api.TypeUpdates,
): { box: string; pts: number; ptsCount: number } | undefined {
  const u = update as {
    pts?: unknown;
    ptsCount?: unknown;
    channelId?: { toString(): string };
    message?: { peerId?: unknown };
  };
  if (typeof u.pts !== "number" || typeof u.ptsCount !== "number") return undefined;
  if (u.channelId != null) return { box: `-100${u.channelId.toString()}`, pts: u.pts, ptsCount: u.ptsCount };
  const peer = u.message?.peerId;
  if (peer instanceof Api.PeerChannel)
    return { box: `-100${peer.channelId.toString()}`, pts: u.pts, ptsCount: u.ptsCount };
  return { box: ACCOUNT_BOX, pts: u.pts, ptsCount: u.ptsCount };
}

/**
 * Everything the account receives goes through one raw handler: the entities an update carries
 * are stored (only when new or changed), its pts is checked against the box it belongs to (see
 * UpdateTracker: gaps are held and then fetched), new messages — full or short — go to the
 * message feed, and reactions (no pts) to `reactions`. GramJS's own NewMessage builder turns short updates into messages, so parsing
 * is the same for every shape. Returns a function that detaches the handler.
 */
export function listenForMessages(o: ListenOptions): () => void {
  const builder = new NewMessage({});
  const selfId = returnBigInt(o.selfId);
  const seenEntityMaps = new WeakSet<object>();

  const messageOf = (update: Api.TypeUpdate): GramMessage | undefined => {
    const event = builder.build(update, undefined, selfId);
    if (!event) return undefined;
    const m = event.message;
    // (From the wire an absent optional field is null, not undefined: truthiness, not `!== undefined`.)
    if (m.fwdFrom || m.viaBotId || m.action || m.replyMarkup) event._setClient(o.client);
    else finishPlain(m, o.client, (update as WithEntities)._entities);
    return m;
  };

  const process = (
    update: Api.TypeUpdate,
    pts: PtsInfo | undefined,
    stored?: () => void,
  ): Promise<unknown> => {
    const raw = messageOf(update);
    if (raw) return o.feed(raw, pts, stored);
    // Not a conversation message: a service message (a forum topic's title) still goes to the feed.
    if (
      (update instanceof Api.UpdateNewChannelMessage || update instanceof Api.UpdateNewMessage) &&
      update.message instanceof Api.MessageService
    )
      return o.feed(update.message, pts);
    return Promise.resolve();
  };

  // A stop while updates wait for the database (busy, a full disk) is said once by the runtime
  // (runtime/storage-watch.ts sayStopping): each waiting update is not an error of its own.
  const handlingFailed = (err: unknown): void => {
    if (err instanceof GateClosedError) return;
    o.logger.error({ component: "inbound", err: describeDbFailure(err, o.dbFile) }, "update handling failed");
  };

  const callback = async (update: Api.TypeUpdate): Promise<void> => {
    const ents = (update as WithEntities)._entities;
    if (ents && ents.size > 0 && !seenEntityMaps.has(ents)) {
      seenEntityMaps.add(ents);
      // While the database is busy (or its disk fails writes), entities wait their turn like messages (in arrival order).
      const gate = o.gate;
      try {
        if (gate && !gate.open) await gate.run(() => captureEntities(o.entities, ents.values()));
        else {
          const seq = gate?.arrive();
          try {
            captureEntities(o.entities, ents.values());
          } catch (e) {
            if (!gate || !mustWait(e)) throw e;
            await gate.retry(() => captureEntities(o.entities, ents.values()), e, seq);
          }
        }
      } catch (e) {
        if (e instanceof GateClosedError) return; // stopping: the update comes again at the next start
        throw e;
      }
    }
    if (update instanceof Api.UpdateChannelTooLong) {
      const box = `-100${update.channelId.toString()}`;
      // A broadcast channel, or one the account is not in, is never fetched.
      if (!followed(o.entities.get(box))) return;
      o.tracker.gap(box);
      return;
    }
    // "Too many updates": the server dropped what it should have pushed; only getDifference has it.
    if (update instanceof Api.UpdatesTooLong) {
      o.tracker.gap(ACCOUNT_BOX);
      return;
    }
    const at = ptsBox(update);
    if (!at) {
      // Typing and reaction updates carry no pts, so messages never pay for these checks.
      if (o.typing?.note(update)) return;
      // A basic group's default bans changed: what she may send there follows (no request).
      if (update instanceof Api.UpdateChatDefaultBannedRights) {
        observeDefaultBans(o.entities, update);
        return;
      }
      const changed = changedChat(update);
      if (changed !== undefined) {
        o.chatChanged?.(changed);
        return;
      }
      if (update instanceof Api.UpdateMessageReactions) {
        try {
          o.reactions?.(reactionChange(update, o.selfId));
        } catch (err) {
          o.logger.error(
            { component: "inbound", err: describeDbFailure(err, o.dbFile) },
            "reaction handling failed",
          );
        }
        return;
      }
      await process(update, undefined).catch(handlingFailed);
      return;
    }
    // Broadcast posts are not conversation: no update state is kept for such a channel, so a
    // gap there is never fetched. (One Map lookup, channel updates only.)
    if (at.box !== ACCOUNT_BOX && !followed(o.entities.get(at.box))) {
      await process(update, undefined).catch(handlingFailed);
      return;
    }
    const date =
      (update as { date?: number }).date ?? (update as { message?: { date?: number } }).message?.date ?? 0;
    const pts: PtsInfo = { pts: at.pts, ptsCount: at.ptsCount, date };
    let done: Promise<unknown> | undefined;
    o.tracker.enter(at.box, at.pts, at.ptsCount, date, (ticket) => {
      // A message's pts is written in the group commit that holds its row (`stored`); an update
      // that stored none there (an edit, a deletion, a service or addressed message) writes it
      // once handled, into the next commit.
      const stored = ticket ? () => ticket.done() : undefined;
      done = process(update, pts, stored).then(
        () => ticket?.done(),
        (err: unknown) => {
          handlingFailed(err);
          ticket?.failed(); // not stored: the tracker keeps the gap and fetches it again
        },
      );
    });
    // An update held behind a gap runs later; GramJS's dispatch need not wait for it.
    await done;
  };
  const event = new Raw({});
  o.client.addEventHandler(callback, event);
  return () => o.client.removeEventHandler(callback, event);
}

const NO_ENTITIES: ReadonlyMap<string, Api.TypeUser | Api.TypeChat> = new Map();

/**
 * What GramJS's `_setClient` → `_finishInit` does for a plain message, without its eager look-up
 * of the sender's and the chat's input peers. That look-up asks GramJS's entity cache, which holds
 * no input peer for a sender Telegram sent as a min user (most senders in a big group, and the
 * emulator's): it throws, then getInputPeer(undefined) throws — two exceptions per message, the
 * costliest single item left on the hot path (docs/benchmark-p1.md). Parsing needs only the
 * entities the update carried (`sender`, `chat`); `inputSender` / `inputChat` are GramJS getters
 * that look the cache up when first asked (a reply fetch, a download), as `_finishInit` would
 * have. A forward, a via-bot, a service action or reply markup (what `_finishInit` does more for,
 * or reads the input sender of directly) takes GramJS's own path.
 */
function finishPlain(
  m: GramMessage,
  client: TelegramClient,
  entities: ReadonlyMap<string, Api.TypeUser | Api.TypeChat> | undefined,
): void {
  const ents = entities ?? NO_ENTITIES;
  m._client = client;
  const senderId = m.senderId;
  if (senderId) m._sender = ents.get(senderId.toString());
  const chatId = m.chatId;
  if (chatId) m._chat = ents.get(chatId.toString());
}

/** A channel whose update state is kept: not a broadcast channel, not one the account left. */
function followed(e: EntityRecord | undefined): boolean {
  return !e?.broadcast && !e?.gone;
}

/** Feed the updates in an answer to our own request (a send's result carries pts) to the tracker. */
export function trackResult(tracker: UpdateTracker, res: unknown): void {
  const list: Api.TypeUpdate[] =
    res instanceof Api.Updates || res instanceof Api.UpdatesCombined
      ? res.updates
      : res instanceof Api.UpdateShortSentMessage || res instanceof Api.messages.AffectedMessages
        ? [res as unknown as Api.TypeUpdate]
        : [];
  for (const u of list) {
    const at = ptsBox(u);
    if (at) tracker.enter(at.box, at.pts, at.ptsCount, 0, (ticket) => ticket?.done());
  }
}
