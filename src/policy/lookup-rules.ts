/**
 * May this person make the persona look something up here, now? (docs/world.md)
 * The persona's `# Look Ups` level (or the chat's entry under `# Look Up Chats`) against how well
 * it knows the person — `owner`: only `# Allowed Users`; `contacts`: contacts too; `everyone` —,
 * then the day's look-up caps (all, per chat, per person), then the owner's switches and the token
 * caps every LLM call passes (the gate). A refusal is not an error: it names a reason, the plan is
 * not offered `look_up`, or (when it was already asked) the persona answers without it.
 */
import type { Logger } from "pino";
import type { Clock } from "../base/types";
import { matchesPeer } from "../config/persona-policy";
import type { LookUpLevel, LookUpPolicy } from "../config/persona-lookups";
import type { LookupCounts } from "../store/lookups";
import type { Gate } from "./gate";

export interface LookupRulesDeps {
  /** The persona's `# Look Ups` rules, read at each check (an edit of the file applies at once). */
  readonly policy: () => LookUpPolicy;
  readonly gate: Pick<Gate, "trust" | "mediaCall">;
  readonly counts: { today(now: number, chatId: string, userId: string | undefined): LookupCounts };
  /** A chat's @username, to match `# Look Up Chats` entries by name. */
  readonly usernameOf?: (chatId: string) => string | undefined;
  /** The basic group a supergroup was upgraded from: its `# Look Up Chats` entry by id still holds. */
  readonly predecessorOf?: (chatId: string) => string | undefined;
  readonly clock: Clock;
  readonly logger: Logger;
}

export class LookupRules {
  constructor(private readonly d: LookupRulesDeps) {}

  /** The level in force in `chatId`: its `# Look Up Chats` entry, else the persona's. */
  levelIn(chatId: string): LookUpLevel {
    const username = this.d.usernameOf?.(chatId);
    const policy = this.d.policy();
    const earlier = this.d.predecessorOf?.(chatId);
    const entry =
      policy.chats.find((c) => matchesPeer(c.chat, chatId, username)) ??
      (earlier !== undefined ? policy.chats.find((c) => matchesPeer(c.chat, earlier, undefined)) : undefined);
    return entry?.level ?? policy.level;
  }

  /** Why `userId` may not make the persona look something up in `chatId` now; undefined: they may. */
  refusal(chatId: string, userId: string | undefined): string | undefined {
    const level = this.levelIn(chatId);
    if (level === "off") return "look-ups are off here";
    if (userId === undefined) return "nobody asked";
    const trust = this.d.gate.trust(userId);
    if (level === "owner" && trust !== "allowed") return "look-ups are only for the owner's people here";
    if (level === "contacts" && trust === "stranger") return "look-ups are only for contacts here";
    const p = this.d.policy();
    const n = this.d.counts.today(this.d.clock.now(), chatId, userId);
    if (n.total >= p.perDay) return `the day's ${p.perDay} look-ups are spent`;
    if (n.chat >= p.perChat) return `this chat's ${p.perChat} look-ups today are spent`;
    if (n.person >= p.perPerson) return `this person's ${p.perPerson} look-ups today are spent`;
    if (!this.d.gate.mediaCall(chatId, userId)) return "the token caps hold LLM calls here";
    return undefined;
  }

  /** {@link refusal}, logged at info when it refuses (a refused look-up is no error). */
  check(chatId: string, userId: string | undefined, what: string): string | undefined {
    const why = this.refusal(chatId, userId);
    if (why !== undefined)
      this.d.logger.info({ component: "lookup", chatId, userId, reason: why }, `look-up not done: ${what}`);
    return why;
  }
}
