/**
 * The account's standing with Telegram, as its writes meet it: frozen, or spam-limited.
 *
 * - Frozen (FROZEN_METHOD_INVALID, whatever its code; core.telegram.org/api/auth#frozen-accounts):
 *   the account is read-only. rpc-errors.ts pauses every send, sticker, reaction, typing and block
 *   behind one probe limit (tasks/rate-limits.ts: persisted, one send tries again after an hour,
 *   then less often); reading goes on. Here: ONE error line — which persona, what Telegram said,
 *   what the owner can do — with what `help.getAppConfig` tells of the freeze (`freeze_since_date`,
 *   `freeze_until_date`, `freeze_appeal_url`), fetched once when the freeze is met (or found
 *   restored at start).
 * - Spam-limited (PEER_FLOOD): today's behaviour and log line (rpc-errors.ts, RateLimits): sends
 *   to private chats pause until a probe goes through. Only shown here.
 *
 * `restrictions()` is what /readyz, /status, the console and the `account_restricted` metric show.
 */
import type { Logger } from "pino";
import { Api, type TelegramClient } from "telegram";
import { systemClock } from "../../base/clock";
import { errorMessage } from "../../base/error-message";
import { withTimeout } from "../../base/timeout";
import type { Clock } from "../../base/types";
import type { RateLimits } from "../../tasks/rate-limits";
import { FROZEN_KEY, GROUP_BAN_KEY, PEER_FLOOD_KEY } from "./rpc-errors";

/** What help.getAppConfig tells of a freeze (each part only when Telegram gave it). */
export interface FreezeInfo {
  /** When the account was frozen (ms). */
  readonly since?: number;
  /** When Telegram deletes it unless an appeal is accepted (ms). */
  readonly until?: number;
  readonly appealUrl?: string;
}

/** One restriction Telegram put on the account, as the read-outs show it. */
export interface AccountRestriction {
  readonly kind: "frozen" | "peer-flood" | "group-ban";
  /** Telegram's error. */
  readonly code: string;
  /** What it means and what the owner can do, in one line. */
  readonly summary: string;
  /** When one send next tries whether it is lifted (ms). */
  readonly nextProbeAt: number;
  /** A freeze's dates and appeal link (help.getAppConfig). */
  readonly freeze?: FreezeInfo;
}

export interface AccountHealthOptions {
  readonly client: TelegramClient;
  readonly limits: RateLimits;
  /** The persona's name (its lines say whose account it is). */
  readonly persona: string;
  readonly logger: Logger;
  readonly clock: Clock;
  /** Tell the owner in Saved Messages (one message; the account's own chat). */
  readonly tellOwner?: (text: string) => void;
  /** Bound on help.getAppConfig (real time; default 10 s). */
  readonly timeoutMs?: number;
}

const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const minute = (ms: number) => `${new Date(ms).toISOString().slice(0, 16).replace("T", " ")} UTC`;

export class AccountHealth {
  /** The freeze this process reported (its line is logged once), and what Telegram said of it. */
  private freeze: { info: FreezeInfo; said: string } | undefined;
  private reporting: Promise<void> | undefined;

  constructor(private readonly o: AccountHealthOptions) {}

  /**
   * At start: a freeze restored from the database (met before a restart) is reported again, once,
   * with Telegram's dates.
   */
  start(): void {
    const l = this.o.limits.current(FROZEN_KEY, this.o.clock.now());
    if (l) void this.report(`${l.code} (met before the restart)`);
  }

  /** A write met FROZEN_METHOD_INVALID (GramActions tells): report it, once. */
  noteFrozen(method: string, e: Error): void {
    const code = (e as { code?: unknown }).code;
    void this.report(`FROZEN_METHOD_INVALID${typeof code === "number" ? ` (${code})` : ""} on ${method}`);
  }

  /**
   * A send to a supergroup met USER_BANNED_IN_CHANNEL: the account is spam-limited in every
   * supergroup. The first of an episode (no pause in force yet) tells the owner in Saved Messages,
   * once; the pause, its one warning line and its probes are the rate limits' (rpc-errors.ts).
   */
  noteGroupBan(chatId: string): void {
    if (this.o.limits.current(GROUP_BAN_KEY, this.o.clock.now())) return;
    this.o.tellOwner?.(
      `Telegram answered USER_BANNED_IN_CHANNEL in ${chatId}: this account is limited in every supergroup (spam report). ` +
        `I stopped writing in groups; private chats go on. I try one group message again in 3 hours (then less often) and resume by myself once it is lifted. @SpamBot in Telegram tells more.`,
    );
  }

  /** The restrictions in force now (empty: none). */
  restrictions(now = this.o.clock.now()): AccountRestriction[] {
    const out: AccountRestriction[] = [];
    const frozen = this.o.limits.current(FROZEN_KEY, now);
    if (frozen) {
      const info = this.freeze?.info ?? {};
      out.push({
        kind: "frozen",
        code: frozen.code,
        summary: `Telegram froze this account: nothing goes out (sends, reactions, typing); it keeps reading. ${this.advice(info)} One send tries again at ${minute(frozen.until)}.`,
        nextProbeAt: frozen.until,
        freeze: info,
      });
    }
    const flood = this.o.limits.current(PEER_FLOOD_KEY, now);
    if (flood) {
      out.push({
        kind: "peer-flood",
        code: flood.code,
        summary: `Telegram limits messages to people who are not the account's contacts (PEER_FLOOD): private chats are paused, groups go on; one private message tries again at ${minute(flood.until)}. @SpamBot in Telegram tells more.`,
        nextProbeAt: flood.until,
      });
    }
    const ban = this.o.limits.current(GROUP_BAN_KEY, now);
    if (ban) {
      out.push({
        kind: "group-ban",
        code: ban.code,
        summary: `Telegram limits this account in supergroups (USER_BANNED_IN_CHANNEL): group messages are paused, private chats go on; one group message tries again at ${minute(ban.until)}. @SpamBot in Telegram tells more.`,
        nextProbeAt: ban.until,
      });
    }
    return out;
  }

  /** Fetch what Telegram says of the freeze and log the one line (once per process). */
  private report(said: string): Promise<void> {
    if (this.freeze) return Promise.resolve();
    this.reporting ??= this.appConfig()
      .catch((err: unknown) => {
        this.o.logger.debug(
          { component: "account", err: errorMessage(err) },
          "help.getAppConfig failed; the freeze is reported without its dates",
        );
        return {};
      })
      .then((info: FreezeInfo) => {
        this.freeze = { info, said };
        const next = this.o.limits.current(FROZEN_KEY, this.o.clock.now())?.until;
        this.o.logger.error(
          {
            component: "account",
            rpcError: "FROZEN_METHOD_INVALID",
            ...(info.since !== undefined ? { frozenSince: new Date(info.since).toISOString() } : {}),
            ...(info.until !== undefined ? { deletedOn: new Date(info.until).toISOString() } : {}),
            ...(info.appealUrl !== undefined ? { appealUrl: info.appealUrl } : {}),
          },
          `${this.o.persona}: Telegram froze this account (${said}): it is read-only — no sends, reactions or typing; it keeps reading. ` +
            `${this.advice(info)} The persona tries one send ${next !== undefined ? `at ${minute(next)}` : "later"} (then less often) and resumes by itself once the freeze is lifted.`,
        );
      });
    return this.reporting;
  }

  /** What the owner can do, with Telegram's dates and link when known. */
  private advice(info: FreezeInfo): string {
    const since = info.since !== undefined ? `Frozen since ${day(info.since)}. ` : "";
    const until =
      info.until !== undefined
        ? `Telegram deletes the account on ${day(info.until)} unless an appeal is accepted`
        : "Telegram deletes a frozen account after a while unless an appeal is accepted";
    const where = info.appealUrl ? `: appeal at ${info.appealUrl}.` : ": appeal in Telegram's official app.";
    return `${since}${until}${where}`;
  }

  /** help.getAppConfig's freeze fields (core.telegram.org/api/auth#frozen-accounts). */
  private async appConfig(): Promise<FreezeInfo> {
    const res = await withTimeout(
      this.o.client.invoke(new Api.help.GetAppConfig({ hash: 0 })),
      this.o.timeoutMs ?? 10_000,
      "help.GetAppConfig",
      systemClock, // real time: it bounds network I/O
    );
    if (!(res instanceof Api.help.AppConfig) || !(res.config instanceof Api.JsonObject)) return {};
    const field = (key: string) =>
      res.config instanceof Api.JsonObject ? res.config.value.find((v) => v.key === key)?.value : undefined;
    const date = (key: string) => {
      const v = field(key);
      return v instanceof Api.JsonNumber && v.value > 0 ? v.value * 1000 : undefined;
    };
    const url = field("freeze_appeal_url");
    const since = date("freeze_since_date");
    const until = date("freeze_until_date");
    return {
      ...(since !== undefined ? { since } : {}),
      ...(until !== undefined ? { until } : {}),
      ...(url instanceof Api.JsonString && url.value ? { appealUrl: url.value } : {}),
    };
  }
}
