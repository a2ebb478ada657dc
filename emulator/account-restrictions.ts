/**
 * What Telegram does to an account it restricts (`emu.faults.freeze`, `emu.faults.limitSpam`):
 *
 * - **Frozen** (core.telegram.org/api/auth#frozen-accounts): the account is read-only. A method a
 *   frozen account cannot use at all answers FROZEN_METHOD_INVALID (420); a method it may use,
 *   naming a peer it may not reach, answers FROZEN_PARTICIPANT_MISSING (400); help.getAppConfig
 *   carries `freeze_since_date`, `freeze_until_date` and `freeze_appeal_url`. Telegram lists no
 *   methods: here every write the emulator implements is refused (sends, media, forwards, edits,
 *   deletions, reactions, typing, blocks, joins) and reading goes on — history, differences,
 *   dialogs, downloads, and read marks (reading). Which peers are out of reach is not documented
 *   either: the test names them (`unreachable`), and reads of them (differences, history,
 *   messages, full info) answer FROZEN_PARTICIPANT_MISSING.
 * - **Spam-limited** (PEER_FLOOD, 400; a TDLib maintainer, tdlib/td#797: "received when the
 *   account tries to send private messages to too much non-mutual contacts"): sends to a private
 *   chat with a user who is not in the account's contacts answer PEER_FLOOD; groups and contacts
 *   are untouched.
 */
import { Api } from "telegram";
import { fromLong } from "./long";
import { RpcFault } from "./rpc-fault";
import type { EmuChat, EmuUser } from "./types";

/** Methods a frozen account cannot use at all (FROZEN_METHOD_INVALID). */
const WRITE_METHODS: ReadonlySet<string> = new Set([
  "messages.SendMessage",
  "messages.SendMedia",
  "messages.SendMultiMedia",
  "messages.ForwardMessages",
  "messages.EditMessage",
  "messages.DeleteMessages",
  "channels.DeleteMessages",
  "messages.SendReaction",
  "messages.SetTyping",
  "contacts.Block",
  "contacts.Unblock",
  "channels.JoinChannel",
  "channels.LeaveChannel",
  "account.UpdateProfile",
  "account.UpdateStatus",
]);

/** Methods that send to a peer (PEER_FLOOD strikes those to a private chat with a non-contact). */
const SEND_METHODS: ReadonlySet<string> = new Set([
  "messages.SendMessage",
  "messages.SendMedia",
  "messages.SendMultiMedia",
  "messages.ForwardMessages",
]);

/** A frozen account, as help.getAppConfig tells it. */
export interface Freeze {
  /** When it was frozen (ms). */
  readonly since: number;
  /** When it will be deleted unless an appeal is accepted (ms). */
  readonly until: number;
  readonly appealUrl: string;
  /** Chats it may not reach even with methods it may use (marked ids). */
  readonly unreachable: ReadonlySet<string>;
}

/** Options of `emu.faults.freeze`. */
export interface FreezeOptions {
  /** When it was frozen (ms; default: now). */
  readonly since?: number;
  /** When it will be deleted unless an appeal is accepted (ms; default: 30 days after `since`). */
  readonly until?: number;
  /** Where the owner appeals (default a t.me link). */
  readonly appealUrl?: string;
  /** Chats whose reads answer FROZEN_PARTICIPANT_MISSING. */
  readonly unreachable?: readonly EmuChat[];
}

const DAY_MS = 86_400_000;

export class AccountRestrictions {
  private readonly frozen = new Map<number, Freeze>();
  private readonly spamLimited = new Set<number>();
  private readonly groupBanned = new Set<number>();

  constructor(private readonly now: () => number) {}

  freeze(account: EmuUser, o: FreezeOptions = {}): void {
    const since = o.since ?? this.now();
    this.frozen.set(account.id, {
      since,
      until: o.until ?? since + 30 * DAY_MS,
      appealUrl: o.appealUrl ?? "https://t.me/spambot",
      unreachable: new Set((o.unreachable ?? []).map((c) => c.peerId)),
    });
  }

  unfreeze(account: EmuUser): void {
    this.frozen.delete(account.id);
  }

  /** Spam-limited in supergroups: its sends and typing there answer USER_BANNED_IN_CHANNEL (400). */
  banInGroups(account: EmuUser, banned: boolean): void {
    if (banned) this.groupBanned.add(account.id);
    else this.groupBanned.delete(account.id);
  }

  limitSpam(account: EmuUser, limited: boolean): void {
    if (limited) this.spamLimited.add(account.id);
    else this.spamLimited.delete(account.id);
  }

  /** The account's freeze, if it is frozen. */
  freezeOf(accountId: number): Freeze | undefined {
    return this.frozen.get(accountId);
  }

  /**
   * The error `account`'s request meets, if a restriction strikes it. `isContact(userId)`: the
   * user is in the account's contacts.
   */
  faultFor(
    account: EmuUser,
    method: string,
    request: Api.AnyRequest,
    isContact: (userId: number) => boolean,
  ): RpcFault | undefined {
    const freeze = this.frozen.get(account.id);
    if (freeze) {
      if (WRITE_METHODS.has(method)) return new RpcFault("FROZEN_METHOD_INVALID", 420);
      const peer = markedPeerOf(request);
      if (peer !== undefined && freeze.unreachable.has(peer))
        return new RpcFault("FROZEN_PARTICIPANT_MISSING", 400);
    }
    if (
      this.groupBanned.has(account.id) &&
      (SEND_METHODS.has(method) || method === "messages.SetTyping") &&
      markedPeerOf(request)?.startsWith("-100")
    )
      return new RpcFault("USER_BANNED_IN_CHANNEL", 400);
    if (this.spamLimited.has(account.id) && SEND_METHODS.has(method)) {
      const peer = (request as { peer?: unknown }).peer;
      if (peer instanceof Api.InputPeerUser || peer instanceof Api.InputPeerUserFromMessage) {
        const userId = fromLong(peer.userId);
        if (userId !== account.id && !isContact(userId)) return new RpcFault("PEER_FLOOD", 400);
      }
    }
    return undefined;
  }
}

/** The marked id of the chat a request names (its `peer` or `channel`), when it names one. */
function markedPeerOf(request: Api.AnyRequest): string | undefined {
  const r = request as { peer?: unknown; channel?: unknown };
  const p = r.peer ?? r.channel;
  if (p instanceof Api.InputPeerChannel || p instanceof Api.InputChannel)
    return `-100${fromLong(p.channelId)}`;
  if (p instanceof Api.InputPeerChat) return `-${fromLong(p.chatId)}`;
  if (p instanceof Api.InputPeerUser) return String(fromLong(p.userId));
  return undefined;
}
