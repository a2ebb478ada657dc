/**
 * What the attached clients asked of Telegram (`emu.traffic`): every account request in order,
 * listeners told as requests arrive, the chat actions accounts reported, the file chunks they
 * fetched. Login-path requests (no account yet) are `emu.auth.requests`.
 */
import { Api } from "telegram";
import { asMessageId } from "./methods/resolve-peer";
import type { RpcEndpoint } from "./rpc-endpoint";
import type { EmuChat, EmuUser, RecordedRequest, TypingRecord } from "./types";
import type { World } from "./world";

export class Traffic {
  constructor(
    private readonly endpoint: RpcEndpoint,
    private readonly world: World,
  ) {}

  /** Every request any attached client sent, in order. */
  get requests(): readonly RecordedRequest[] {
    return this.endpoint.requests;
  }

  clearRequests(): void {
    this.endpoint.clearRequests();
  }

  /** Just the method names of `requests` (optionally of one account), in order. */
  methods(account?: EmuUser): string[] {
    return this.endpoint.requests
      .filter((r) => account === undefined || r.account.id === account.id)
      .map((r) => r.method);
  }

  /** Be told of every request an account sends, as it arrives; returns unsubscribe. */
  onRequest(listener: (r: RecordedRequest) => void): () => void {
    return this.endpoint.onRequest(listener);
  }

  /** Be told when an account asks to react to a message (as it asks; REACTION_INVALID may follow). */
  onReaction(
    listener: (e: { account: EmuUser; messageId: number; emoji: string; private: boolean }) => void,
  ): () => void {
    return this.onRequest((r) => {
      if (!(r.request instanceof Api.messages.SendReaction)) return;
      const emoji = (r.request.reaction ?? [])
        .map((x) => (x instanceof Api.ReactionEmoji ? x.emoticon : "?"))
        .join("");
      // A reaction in a private chat names a user as its peer (or the account itself).
      const peer = r.request.peer;
      const isPrivate = peer instanceof Api.InputPeerUser || peer instanceof Api.InputPeerSelf;
      listener({ account: r.account, messageId: asMessageId(r.request.msgId), emoji, private: isPrivate });
    });
  }

  /** Chat actions (typing…) accounts reported, optionally for one chat. */
  typing(chat?: EmuChat): readonly TypingRecord[] {
    return chat === undefined ? [...this.world.typing] : this.world.typing.filter((t) => t.chat === chat);
  }

  /** upload.getFile requests served so far (one per chunk), in order. */
  fileRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === "upload.GetFile");
  }
}
