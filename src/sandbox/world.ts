/**
 * The sandbox's emulated world: an in-process Telegram (the emulator) with the persona's account,
 * alice, bob and carol (its contacts), and the supergroup "Sandbox" they share. Members act out
 * the lines typed (grammar.ts); whatever happens in a chat is printed as a person there would see
 * it. The world outlives the persona's process (/kill, /start).
 */
import { SANDBOX_PAGES } from "./echo-lookup";
import { createEmulatedClient, TelegramEmulator, type EmuChat, type EmuUser } from "../../emulator";
import type { TelegramClient } from "../telegram/inbound/listen";
import { PeerCacheSession } from "../telegram/connection/session";
import { standardReaction } from "../base/standard-reactions";
import type { SandboxCommand } from "./grammar";
import { mediaFromSpec } from "./media";

/** The people in the sandbox besides the persona. */
export const MEMBERS = ["alice", "bob", "carol"] as const;

/** A line a member acts out (not a control line). */
export type MemberCommand = Extract<SandboxCommand, { readonly member: string }>;

export class SandboxWorld {
  readonly emu: TelegramEmulator;
  /** The persona's account. */
  readonly account: EmuUser;
  /** The supergroup "Sandbox": the persona and every member. */
  readonly group: EmuChat;
  private readonly members: Map<string, EmuUser>;
  /** Display names by user id: the persona's, then the members' (lower case, as typed). */
  private readonly names: Map<number, string>;
  private readonly dms = new Map<string, EmuChat>();
  /** Her voice notes seen in the chat whose words are not stored yet (printed by showSpoken). */
  private readonly spoken: { chatId: string; id: number; head: string; tail: string }[] = [];
  /** The owner line being posted: its message is printed as the owner's, not the persona's. */
  private ownerLine: { readonly chat: number; readonly text: string } | undefined;

  constructor(
    personaName: string,
    private readonly print: (s: string) => void,
    /** The world's time (the sandbox's clock, which `/advance` moves). */
    now: () => number = Date.now,
  ) {
    this.emu = new TelegramEmulator({ now });
    const emu = this.emu;
    this.account = emu.addAccount({
      firstName: personaName,
      username: `${personaName.toLowerCase().replace(/[^a-z0-9_]/g, "")}_sandbox`,
    });
    this.members = new Map<string, EmuUser>(
      MEMBERS.map((n) => [n, emu.addUser({ firstName: n[0]!.toUpperCase() + n.slice(1), username: n })]),
    );
    this.group = emu.createSupergroup({
      title: "Sandbox",
      members: [this.account, ...this.members.values()],
    });
    // They are the persona's contacts, as a real account's friends would be (a `contacts` DM policy answers them).
    for (const u of this.members.values()) emu.addContact(this.account, u);
    // Links to these pages arrive with Telegram's preview (echo-lookup.ts).
    for (const p of SANDBOX_PAGES) emu.webPages.register(p.url, p.page);
    this.names = new Map<number, string>([
      [this.account.id, personaName],
      ...[...this.members].map(([n, u]) => [u.id, n] as [number, string]),
    ]);
    emu.onMessage((m) => {
      const saved = m.chat.kind === "dm" && m.chat.id === this.account.id;
      const where = saved ? "[saved] " : m.chat.kind === "dm" ? "[dm] " : "";
      // The owner's own line comes from the persona's account too: named as the owner.
      const own = this.ownerLine;
      const byOwner =
        own !== undefined && m.fromId === this.account.id && m.chat.id === own.chat && m.text === own.text;
      if (byOwner) this.ownerLine = undefined;
      const who = byOwner ? "owner" : (this.names.get(m.fromId) ?? m.fromName);
      // Her own voice note: shown with its words when the send is stored (showSpoken).
      if (m.media === "voice" && m.fromId === this.account.id && !byOwner) {
        this.spoken.push({
          chatId: m.chat.peerId,
          id: m.id,
          head: `${where}#${m.id} ${who}: `,
          tail: m.replyTo !== undefined ? ` (↩ #${m.replyTo})` : "",
        });
        return;
      }
      const body =
        m.media === "sticker"
          ? `[sticker ${m.stickerEmoji ?? ""}]`
          : m.media
            ? `[${m.media}]${m.text ? ` ${m.text}` : ""}`
            : m.text;
      print(`${where}#${m.id} ${who}: ${body}${m.replyTo !== undefined ? ` (↩ #${m.replyTo})` : ""}`);
    });
    // Reactions are not messages; show them too, as a person in the chat would see them.
    emu.traffic.onReaction((r) =>
      print(
        `${r.private ? "[dm] " : ""}* ${personaName} reacts ${r.emoji || "(removed)"} to #${r.messageId}`,
      ),
    );
  }

  /**
   * Print her voice notes whose words are stored by now (`[voice 3 s] …`, as her history has
   * them); the others wait for the next call.
   */
  showSpoken(text: (chatId: string, id: number) => string | undefined): void {
    for (const v of [...this.spoken]) {
      const said = text(v.chatId, v.id);
      if (said === undefined) continue;
      this.spoken.splice(this.spoken.indexOf(v), 1);
      this.print(`${v.head}${said}${v.tail}`);
    }
  }

  /** A member by the name typed (lower case); undefined for anyone else. */
  member(name: string): EmuUser | undefined {
    return this.members.get(name);
  }

  /** How `--verbose` names a chat: the group, a member's DM, or its id. */
  chatName(chatId: string): string {
    if (chatId === this.group.peerId) return `group "Sandbox"`;
    const who = [...this.members].find(([, u]) => String(u.id) === chatId)?.[0];
    return who ? `dm ${who}` : `chat ${chatId}`;
  }

  /** Whether the persona's account is connected (not /offline). */
  connected(): boolean {
    return this.emu.net.isConnected(this.account);
  }

  /** A GramJS client on the persona's account: what a new process of the persona connects with. */
  client(): TelegramClient {
    return createEmulatedClient(this.emu, this.account, { session: new PeerCacheSession("") });
  }

  /** A member's DM with the persona (made on first use). */
  private dmOf(name: string, user: EmuUser): EmuChat {
    return this.dms.get(name) ?? this.dms.set(name, this.emu.dm(this.account, user)).get(name)!;
  }

  /**
   * The account's owner writes from another device: in Saved Messages (the persona runs owner
   * commands there and answers there), or in the group or a member's DM (a takeover).
   */
  async owner(cmd: Extract<SandboxCommand, { readonly kind: "owner" }>): Promise<void> {
    let chat: EmuChat;
    if (cmd.where === "saved") chat = this.emu.savedMessages(this.account);
    else if (cmd.where === "group") chat = this.group;
    else {
      const user = this.members.get(cmd.member ?? "");
      if (!user) throw new Error(`no member "${cmd.member ?? ""}" (the members are ${MEMBERS.join(", ")})`);
      chat = this.dmOf(cmd.member!, user);
    }
    this.ownerLine = { chat: chat.id, text: cmd.text };
    try {
      await this.emu.post({ chat, from: this.account, text: cmd.text, deliverToSender: true });
    } finally {
      this.ownerLine = undefined;
    }
  }

  /** A member acts out a line: posts (in the group, as a reply, in their DM, with media), types or reacts. */
  async act(cmd: MemberCommand, from: EmuUser): Promise<void> {
    const emu = this.emu;
    const inDm = cmd.kind === "dm" || ((cmd.kind === "typing" || cmd.kind === "react") && cmd.dm);
    const chat = inDm ? this.dmOf(cmd.member, from) : this.group;
    if (cmd.kind === "typing") {
      await emu.chats.userTyping(chat, from, { action: cmd.stop ? "cancel" : "typing" });
      this.print(`${inDm ? "[dm] " : ""}… ${cmd.member} ${cmd.stop ? "stopped typing" : "is typing"}`);
      return;
    }
    if (cmd.kind === "react") {
      // Telegram's heart is U+2764 without U+FE0F; accept what a keyboard types.
      const emoji = cmd.emoji === null ? null : (standardReaction(cmd.emoji) ?? cmd.emoji);
      await emu.chats.react(from, chat, cmd.messageId, emoji);
      this.print(
        `${inDm ? "[dm] " : ""}* ${cmd.member} ${emoji === null ? "takes back the reaction on" : `reacts ${emoji} to`} #${cmd.messageId}`,
      );
      return;
    }
    await emu.post({
      chat,
      from,
      text: cmd.text,
      ...(cmd.kind === "post" && cmd.replyTo !== undefined ? { replyTo: cmd.replyTo } : {}),
      ...(cmd.media !== undefined ? { media: mediaFromSpec(cmd.media, emu) } : {}),
    });
  }
}
