/**
 * A member who is not an attached account leaves a group or supergroup, or is removed from it:
 * Telegram posts a messageActionChatDeleteUser service message in the chat (from the member
 * itself when it left, from the admin who removed it otherwise), which the remaining members
 * are pushed like any message — in a supergroup's pts stream too. A big supergroup need not
 * post one (docs/telegram-facts.md, "People who leave a group"): `silent` models that.
 */
import type { MessageBus } from "./message-bus";
import type { ChatRecord } from "./stored-message";
import type { EmuUser } from "./types";
import type { World } from "./world";

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
