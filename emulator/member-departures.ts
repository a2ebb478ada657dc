/**
 * A member who is not an attached account leaves a group or supergroup, or is removed from it:
 * Telegram posts a messageActionChatDeleteUser service message in the chat (from the member
 * itself when it left, from the admin who removed it otherwise), which the remaining members
 * are pushed like any message — in a supergroup's pts stream too. In a group of 50 members or
 * more Telegram posts none unless the one who went is a bot (docs/telegram-facts.md, "People who
 * leave a group"): `removeMember`'s `silent`, by default from that size.
 */
import type { MessageBus } from "./message-bus";
import type { ChatRecord } from "./stored-message";
import type { EmuUser } from "./types";
import type { World } from "./world";

/** From this many members (before the departure), a human's departure posts no service message. */
export const BIG_GROUP_MEMBERS = 50;

/** Posts the departure's service message and pushes it to the attached members. */
export function postDeparture(
  world: World,
  bus: MessageBus,
  rec: ChatRecord,
  user: EmuUser,
  how: "kicked" | "left",
  now: number,
): void {
  const admin = world.referenceViewer(rec)?.id ?? [...rec.members][0] ?? 0;
  const msg = world.storeMessage({
    chat: rec,
    fromId: how === "left" ? user.id : admin,
    text: "",
    entities: [],
    date: now,
    service: { action: "chat-delete-user", title: "", userId: user.id },
  });
  bus.pushNow(msg);
}
