/**
 * A basic group upgraded to a supergroup, as Telegram's server does it (messages.migrateChat;
 * docs/telegram-facts.md "A basic group upgraded to a supergroup"): a new megagroup with the same
 * members and title; the old group gets a messageActionChatMigrateTo {channel_id} service message
 * and is deactivated (`chat.deactivated`, `migrated_to`), refusing every later send; the
 * supergroup gets messageActionChannelMigrateFrom {title, chat_id}, and its channelFull names
 * the old group (`migrated_from_chat_id`, `migrated_from_max_id`). Both service messages are
 * pushed to the attached member accounts, the old group's first.
 */
import type { MessageBus } from "./message-bus";
import type { ChatRecord } from "./stored-message";
import type { EmuChat } from "./types";
import type { World } from "./world";

/** Upgrades `chat` (a basic group); returns the new supergroup. */
export function upgradeChat(world: World, bus: MessageBus, chat: EmuChat, now: number): EmuChat {
  if (chat.kind !== "group") throw new Error(`emulator: only a basic group is upgraded (${chat.peerId})`);
  const old = world.record(chat);
  if (old.migratedTo) throw new Error(`emulator: ${chat.peerId} was already upgraded`);
  const members = [...old.members].flatMap((id) => {
    const u = world.user(id);
    return u ? [u] : [];
  });
  // The upgrader: a human member (Telegram requires the group's creator).
  const by = members.find((u) => !u.isAccount) ?? members[0];
  const next = world.createSupergroup(chat.title ?? "", members, false);
  const rec = world.record(next);
  const title = chat.title ?? "";
  const service = (rec: ChatRecord, action: "chat-migrate-to" | "channel-migrate-from", peer: number) =>
    world.storeMessage({
      chat: rec,
      fromId: by?.id ?? 0,
      text: "",
      entities: [],
      date: now,
      service: { action, title, peer },
    });
  const last = service(old, "chat-migrate-to", next.id);
  old.migratedTo = rec;
  rec.migratedFrom = { chat: old, last };
  const from = service(rec, "channel-migrate-from", chat.id);
  bus.pushNow(last);
  bus.pushNow(from);
  return next;
}
