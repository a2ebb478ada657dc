import type { Logger } from "pino";
import { Api } from "telegram";
import { returnBigInt } from "telegram/Helpers.js";
import type { EntityRecord, EntityStore } from "../../store/entities";
import type { UpdateStateStore } from "../../store/update-state";
import { captureEntities, inputPeerOf } from "../entities";
import type { ReadCalls } from "./read-calls";

/** The pts an update carried, when it is one of the short shapes or a new-message update. */
export interface PtsInfo {
  readonly pts: number;
  readonly ptsCount: number;
  readonly date: number;
}

/**
 * Finds who sent a message whose update carried no usable user object (an `UpdateShortMessage`,
 * an `UpdateShortChatMessage`, or a sender GramJS could not name). Only called for messages the
 * persona will answer. In a group or supergroup: `users.getUsers` with `InputUserFromMessage`
 * (the server vouches for the sender through the message). In a DM there is no other peer to
 * vouch: the difference from just before the message carries the user (`updates.getDifference`).
 * Both go through the read calls: bounded in time, not asked while their method is flood-paused
 * (the message is then answered without the sender's full user).
 */
export class SenderResolver {
  constructor(
    private readonly o: {
      readonly reads: ReadCalls;
      readonly entities: EntityStore;
      readonly state: UpdateStateStore;
      readonly logger: Logger;
    },
  ) {}

  async resolve(p: {
    chatId: string;
    chatType: string;
    senderId: string;
    messageId: number;
    pts?: PtsInfo;
  }): Promise<EntityRecord | undefined> {
    const known = () => {
      const e = this.o.entities.get(p.senderId);
      return e && !e.min && e.accessHash !== undefined ? e : undefined;
    };
    try {
      if (p.chatType === "dm") {
        if (p.pts) {
          const st = this.o.state.account();
          const res = await this.o.reads.invoke(
            new Api.updates.GetDifference({
              pts: p.pts.pts - p.pts.ptsCount,
              date: Math.max(0, p.pts.date - 1),
              qts: st?.qts ?? 0,
              ptsLimit: 10,
            }),
          );
          if (res instanceof Api.updates.Difference || res instanceof Api.updates.DifferenceSlice)
            captureEntities(this.o.entities, [...res.users, ...res.chats]);
          if (known()) return known();
        }
      } else {
        // A basic group needs no access hash (and a short update brings no chat object).
        const peer =
          p.chatType === "group"
            ? new Api.InputPeerChat({ chatId: returnBigInt(p.chatId.slice(1)) })
            : inputPeerOf(this.o.entities.get(p.chatId));
        if (peer) {
          const users = await this.o.reads.invoke(
            new Api.users.GetUsers({
              id: [
                new Api.InputUserFromMessage({ peer, msgId: p.messageId, userId: returnBigInt(p.senderId) }),
              ],
            }),
          );
          captureEntities(this.o.entities, users);
          const e = this.o.entities.get(p.senderId);
          if (e) return e;
        }
      }
    } catch (err) {
      this.o.logger.warn(
        { component: "inbound", chatId: p.chatId, messageId: p.messageId, err: String(err) },
        "could not resolve the sender",
      );
      return undefined;
    }
    return this.o.entities.get(p.senderId);
  }
}
