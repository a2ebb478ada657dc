import { Api, errors } from "telegram";
import { CustomFile } from "telegram/client/uploads.js";
import { returnBigInt } from "telegram/Helpers.js";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

async function rpcError(p: Promise<unknown>): Promise<{ message: string; code: number | undefined }> {
  try {
    await p;
  } catch (e) {
    if (e instanceof errors.RPCError) return { message: e.errorMessage, code: e.code };
    throw e;
  }
  throw new Error("no error");
}

const ogg = Buffer.concat([Buffer.from("OggS"), Buffer.alloc(3000, 7)]);
const waveform = Buffer.from([0x1f, 0x00, 0x7c]);

describe("uploads and voice messages", () => {
  it("GramJS's own sendFile with voiceNote: the parts go up, the message is a voice note with the duration and waveform attached", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    await client.sendFile(dm.peerId, {
      file: new CustomFile("voice.ogg", ogg.length, "", ogg),
      voiceNote: true,
      attributes: [new Api.DocumentAttributeAudio({ voice: true, duration: 3, waveform })],
    });
    const last = emu.history(dm).at(-1)!;
    expect(last.fromId).toBe(persona.id);
    expect(last.media).toBe("voice");
    expect(last.audio).toEqual({ bytes: ogg, mimeType: "audio/ogg", duration: 3, waveform });
    // The member's client sees it as Telegram shows it: a voice document with its attribute.
    const [m] = (await client.getMessages(dm.peerId, { ids: [last.id] })) as Api.Message[];
    const doc = (m!.media as Api.MessageMediaDocument).document as Api.Document;
    expect((m!.media as Api.MessageMediaDocument).voice).toBe(true);
    const attr = doc.attributes.find(
      (a) => a instanceof Api.DocumentAttributeAudio,
    ) as Api.DocumentAttributeAudio;
    expect(attr).toMatchObject({ voice: true, duration: 3 });
    expect(Buffer.from(attr.waveform!)).toEqual(waveform);
  });

  it("a voice note someone posts carries the waveform their app attached, as getHistory shows it", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "voice", bytes: ogg, mimeType: "audio/ogg", duration: 2, waveform },
    });
    const res = (await client.invoke(
      new Api.messages.GetHistory({
        peer: dm.peerId,
        limit: 5,
        offsetId: 0,
        offsetDate: 0,
        addOffset: 0,
        maxId: 0,
        minId: 0,
        hash: returnBigInt(0),
      }),
    )) as Api.messages.Messages;
    const m = res.messages[0] as Api.Message;
    const doc = (m.media as Api.MessageMediaDocument).document as Api.Document;
    const attr = doc.attributes.find(
      (a) => a instanceof Api.DocumentAttributeAudio,
    ) as Api.DocumentAttributeAudio;
    expect(attr).toMatchObject({ voice: true, duration: 2 });
    expect(Buffer.from(attr.waveform!)).toEqual(waveform);
  });

  it("a send names its upload: a missing part is FILE_PART_0_MISSING, an unknown upload FILE_PARTS_INVALID, a used upload is gone", async () => {
    const { emu, persona, alice, client } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    const send = (id: number, parts: number, randomId: number) =>
      client.invoke(
        new Api.messages.SendMedia({
          peer: dm.peerId,
          media: new Api.InputMediaUploadedDocument({
            file: new Api.InputFile({ id: returnBigInt(id), parts, name: "voice.ogg", md5Checksum: "" }),
            mimeType: "audio/ogg",
            attributes: [new Api.DocumentAttributeAudio({ voice: true, duration: 1 })],
          }),
          message: "",
          randomId: returnBigInt(randomId),
        }),
      );
    expect(await rpcError(send(77, 1, 1))).toEqual({ message: "FILE_PARTS_INVALID", code: 400 });
    await client.invoke(
      new Api.upload.SaveFilePart({ fileId: returnBigInt(78), filePart: 1, bytes: Buffer.alloc(10) }),
    );
    expect(await rpcError(send(78, 2, 2))).toEqual({ message: "FILE_PART_0_MISSING", code: 400 });
    await client.invoke(
      new Api.upload.SaveFilePart({ fileId: returnBigInt(79), filePart: 0, bytes: Buffer.alloc(1000) }),
    );
    await client.invoke(
      new Api.upload.SaveFilePart({ fileId: returnBigInt(79), filePart: 1, bytes: Buffer.alloc(10) }),
    );
    // 1000 bytes is no whole number of KB: only the last part may be.
    expect(await rpcError(send(79, 2, 3))).toEqual({ message: "FILE_PART_SIZE_INVALID", code: 400 });
    await client.invoke(
      new Api.upload.SaveFilePart({ fileId: returnBigInt(80), filePart: 0, bytes: Buffer.alloc(10) }),
    );
    await send(80, 1, 4);
    expect(await rpcError(send(80, 1, 5))).toEqual({ message: "FILE_PARTS_INVALID", code: 400 });
  });

  it("send_voices banned in a group: CHAT_SEND_VOICES_FORBIDDEN (403) while text goes; a user forbidding voice messages: VOICE_MESSAGES_FORBIDDEN (403)", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({ chat: sg, from: alice, text: "hi" });
    await emu.chats.restrict(sg, { defaultBans: { sendVoices: true } });
    const voice = (peer: string) =>
      client.sendFile(peer, {
        file: new CustomFile("voice.ogg", ogg.length, "", ogg),
        voiceNote: true,
        attributes: [new Api.DocumentAttributeAudio({ voice: true, duration: 1 })],
      });
    expect(await rpcError(voice(sg.peerId))).toEqual({ message: "CHAT_SEND_VOICES_FORBIDDEN", code: 403 });
    await client.sendMessage(sg.peerId, { message: "text is fine" });
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "hi" });
    emu.forbidVoiceMessages(alice);
    expect(await rpcError(voice(dm.peerId))).toEqual({ message: "VOICE_MESSAGES_FORBIDDEN", code: 403 });
    expect(emu.history(dm).filter((m) => m.media === "voice")).toHaveLength(0);
  });
});
