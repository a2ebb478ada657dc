import type { Logger } from "pino";
import type { PersonaPolicy } from "../config/persona";
import { matchesPeer } from "../config/persona-policy";
import { ALL_CHATS, type ChatSettingsStore } from "../store/chat-settings";
import type { Clock, InboundMessage } from "../types";
import type { Caps } from "./caps";

/** Whether an addressed message gets an answer; when not, why (for logs, tests and `--verbose`). */
export type Admission =
  | { readonly ok: true }
  | { readonly ok: false; readonly outcome: "ignored" | "capped"; readonly reason: string }
  /** Decidable only once the sender is known (an allowlist naming @usernames, an unnamed sender). */
  | { readonly ok: false; readonly needsSender: true };

const OK: Admission = Object.freeze({ ok: true });
const NEEDS_SENDER: Admission = Object.freeze({ ok: false, needsSender: true });

export interface AdmissionDeps {
  readonly policy: PersonaPolicy;
  readonly selfId: string;
  /** User ids of the other personas running in this process (may include this one's; it is skipped). */
  readonly siblings: ReadonlySet<string>;
  readonly settings: ChatSettingsStore;
  readonly caps: Caps;
  readonly clock: Clock;
  readonly logger: Logger;
  /** The contact flag the entity store last saw in a full user object (undefined: never seen). */
  readonly isContact?: (userId: string) => boolean | undefined;
}

/**
 * The persona's policies, asked only for messages it would answer (so a message that does not
 * address it pays nothing here). Everything is decided from what the parsed message carries and
 * from memory — never a Telegram request. In order: another persona of this process (loop
 * guard), the DM policy, the allowed groups, the owner's pause, an owner takeover, then the caps.
 * Bots and the service account never get this far (the pipeline skips them).
 */
export function createAdmission(d: AdmissionDeps): (m: InboundMessage) => Admission {
  const ignore = (m: InboundMessage, reason: string): Admission => {
    d.logger.debug({ component: "policy", chatId: m.chatId, messageId: m.messageId, senderId: m.senderId, reason }, "addressed message not answered");
    return { ok: false, outcome: "ignored", reason };
  };
  const { policy } = d;
  return (m) => {
    if (m.senderId !== d.selfId && d.siblings.has(m.senderId)) return ignore(m, "another persona of this process");
    if (m.chatType === "dm") {
      switch (policy.dm) {
        case "off":
          return ignore(m, "DM policy off");
        case "contacts": {
          // A short update carries no user object: the flag last seen in a full one (entity
          // store) stands in. Never seen at all counts as "not a contact": fail closed.
          const contact = m.senderIsContact ?? d.isContact?.(m.senderId);
          if (contact !== true) return ignore(m, contact === undefined ? "DM policy contacts: contact status unknown" : "DM policy contacts: not a contact");
          break;
        }
        case "allowlist":
          if (!policy.allowedUsers.some((r) => matchesPeer(r, m.senderId, m.senderUsername))) {
            // Only a @username entry can still match a sender the update did not name.
            if (m.senderUnknown && m.senderUsername === undefined && policy.allowedUsers.some((r) => !("id" in r))) return NEEDS_SENDER;
            return ignore(m, "DM policy allowlist: not listed");
          }
          break;
        case "open":
          break;
      }
    } else if (policy.allowedGroups.length > 0 && !policy.allowedGroups.some((r) => matchesPeer(r, m.chatId, m.chatUsername))) {
      return ignore(m, "group not in Allowed Groups");
    }
    if (d.settings.get(ALL_CHATS).paused) return ignore(m, "paused by the owner (everywhere)");
    const chat = d.settings.get(m.chatId);
    if (chat.paused) return ignore(m, "paused by the owner");
    if (chat.silentUntil !== undefined && chat.silentUntil > d.clock.now()) return ignore(m, "the owner took over this chat");
    const cap = d.caps.check(m.chatId);
    if (cap) return { ok: false, outcome: "capped", reason: cap };
    return OK;
  };
}
