import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { renderMedia, renderMessageText } from "../../../src/base/media-descriptor";
import { fileUniqueId } from "../../../src/base/file-unique-id";
import { parseMessage } from "../../../src/telegram/inbound/parse";
import { world } from "../../emulator/harness";

const bytes = (n: number) => Buffer.alloc(n, 7);

describe("media kinds parsed from the update, no API call", () => {
  it("photo, sticker, GIF, video, video note, voice, audio, document: kind, unique id, file location, and the plain placeholder", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    emu.addStickerSet({
      shortName: "EmuCats",
      title: "Cats",
      stickers: [{ emoji: "😺" }, { emoji: "🎉", mimeType: "application/x-tgsticker" }],
    });
    const posts = [
      { text: "my cat", media: { kind: "photo" as const, bytes: bytes(50) } },
      { text: "", media: { kind: "sticker" as const, set: "EmuCats", emoji: "🎉" } },
      { text: "", media: { kind: "gif" as const, bytes: bytes(10), mimeType: "video/mp4", duration: 2 } },
      {
        text: "",
        media: {
          kind: "video" as const,
          bytes: bytes(10),
          mimeType: "video/mp4",
          duration: 75,
          fileName: "v.mp4",
        },
      },
      {
        text: "",
        media: { kind: "video_note" as const, bytes: bytes(10), mimeType: "video/mp4", duration: 9 },
      },
      { text: "", media: { kind: "voice" as const, bytes: bytes(10), mimeType: "audio/ogg", duration: 12 } },
      {
        text: "",
        media: {
          kind: "audio" as const,
          bytes: bytes(10),
          mimeType: "audio/mpeg",
          duration: 200,
          title: "Song",
          performer: "Band",
        },
      },
      {
        text: "",
        media: {
          kind: "document" as const,
          bytes: bytes(2_200_000),
          mimeType: "application/pdf",
          fileName: "report.pdf",
        },
      },
    ];
    for (const p of posts) await emu.post({ chat: dm, from: alice, ...p });
    const parsed = inbox.events.map((e) => parseMessage(e.message)!);
    expect(parsed.map((m) => m.media?.kind)).toEqual([
      "photo",
      "sticker",
      "gif",
      "video",
      "video_note",
      "voice",
      "audio",
      "document",
    ]);
    expect(parsed.map((m) => m.text)).toEqual([
      "my cat",
      "[sticker 🎉]",
      "[gif]",
      "[video 1:15]",
      "[video note 0:09]",
      "[voice 0:12]",
      "[audio Band – Song 3:20]",
      "[document report.pdf, 2.1 MB]",
    ]);
    const photo = parsed[0]!.media!;
    expect(photo).toMatchObject({
      caption: true,
      mime: "image/jpeg",
      file: { type: "photo", thumb: "x", dcId: 2 },
    });
    expect(photo.uid).toBe(fileUniqueId("photo", photo.file!.id));
    const sticker = parsed[1]!.media!;
    expect(sticker.sticker).toMatchObject({ emoji: "🎉", animated: "tgs" });
    expect(sticker.sticker?.setId).toBeDefined();
    expect(sticker.uid).toBe(fileUniqueId("document", sticker.file!.id));
    expect(renderMessageText("my cat", photo, { text: "a ginger cat on a sofa" })).toBe(
      "[photo: a ginger cat on a sofa]\nmy cat",
    );
    expect(renderMedia(sticker, { text: "confetti", stickerSet: "EmuCats" })).toBe(
      "[sticker EmuCats::🎉: confetti]",
    );
    expect(renderMedia(parsed[5]!.media!, { text: "see you at six" })).toBe('[voice 0:12: "see you at six"]');
  });

  it("a GIF and an animated or video sticker name their still thumbnail; a static sticker and a video do not", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    emu.addStickerSet({
      shortName: "Mixed",
      title: "Mixed",
      stickers: [
        { emoji: "😺" },
        { emoji: "🎉", mimeType: "application/x-tgsticker" },
        { emoji: "🏃", mimeType: "video/webm" },
      ],
    });
    const still = Buffer.alloc(700, 1);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(10), mimeType: "video/mp4", thumb: still },
    });
    for (const emoji of ["😺", "🎉", "🏃"])
      await emu.post({ chat: dm, from: alice, text: "", media: { kind: "sticker", set: "Mixed", emoji } });
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "video", bytes: bytes(10), mimeType: "video/mp4" },
    });
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(10), mimeType: "video/mp4", thumb: null },
    });
    const stills = inbox.events.map((e) => parseMessage(e.message)!.media!.still);
    expect(stills).toEqual([
      { thumb: "m", size: 700 },
      undefined,
      { thumb: "m", size: expect.any(Number) },
      { thumb: "m", size: expect.any(Number) },
      undefined,
      undefined,
    ]);
  });

  it("poll, location, venue and contact are read from the message alone", () => {
    const base = {
      id: 5,
      peerId: new Api.PeerUser({ userId: 42 as never }),
      date: 1_700_000_000,
      message: "",
    };
    const msg = (media: Api.TypeMessageMedia) => new Api.Message({ ...base, media });
    const poll = parseMessage(
      msg(
        new Api.MessageMediaPoll({
          poll: new Api.Poll({
            id: 1 as never,
            question: new Api.TextWithEntities({ text: "Pizza?", entities: [] }),
            answers: [
              new Api.PollAnswer({
                text: new Api.TextWithEntities({ text: "yes", entities: [] }),
                option: Buffer.from([0]),
              }),
              new Api.PollAnswer({
                text: new Api.TextWithEntities({ text: "no", entities: [] }),
                option: Buffer.from([1]),
              }),
            ],
          }),
          results: new Api.PollResults({}),
        }),
      ),
    );
    expect(poll?.text).toBe("[poll: Pizza? — yes / no]");
    const geo = parseMessage(
      msg(
        new Api.MessageMediaGeo({
          geo: new Api.GeoPoint({ lat: 52.52, long: 13.405, accessHash: 0 as never }),
        }),
      ),
    );
    expect(geo?.text).toBe("[location 52.52000, 13.40500]");
    const contact = parseMessage(
      msg(
        new Api.MessageMediaContact({
          phoneNumber: "+1",
          firstName: "Ann",
          lastName: "Lee",
          vcard: "",
          userId: 0 as never,
        }),
      ),
    );
    expect(contact?.text).toBe("[contact Ann Lee]");
    const nameless = parseMessage(
      msg(
        new Api.MessageMediaContact({
          phoneNumber: "+4915112345678",
          firstName: "",
          lastName: "",
          vcard: "",
          userId: 0 as never,
        }),
      ),
    );
    expect(nameless?.text).toBe("[contact]");
    expect(JSON.stringify(nameless)).not.toContain("4915112345678");
  });

  it("a photo with only inline sizes (stripped, cached, path) carries no file: nothing to download", () => {
    const base = {
      id: 6,
      peerId: new Api.PeerUser({ userId: 42 as never }),
      date: 1_700_000_000,
      message: "",
    };
    const photo = (sizes: Api.TypePhotoSize[]) =>
      new Api.Message({
        ...base,
        media: new Api.MessageMediaPhoto({
          photo: new Api.Photo({
            id: 77 as never,
            accessHash: 5 as never,
            fileReference: Buffer.from([1]),
            date: 0,
            sizes,
            dcId: 2,
          }),
        }),
      });
    const inlineOnly = parseMessage(
      photo([
        new Api.PhotoStrippedSize({ type: "i", bytes: Buffer.from([1, 2, 3]) }),
        new Api.PhotoCachedSize({ type: "s", w: 90, h: 90, bytes: Buffer.from([4]) }),
        new Api.PhotoPathSize({ type: "j", bytes: Buffer.from([5]) }),
      ]),
    );
    expect(inlineOnly?.media?.kind).toBe("photo");
    expect(inlineOnly?.media?.file).toBeUndefined();
    expect(inlineOnly?.text).toBe("[photo]");
    const real = parseMessage(
      photo([
        new Api.PhotoStrippedSize({ type: "i", bytes: Buffer.from([1]) }),
        new Api.PhotoSize({ type: "m", w: 320, h: 240, size: 900 }),
      ]),
    );
    expect(real?.media?.file).toMatchObject({ type: "photo", thumb: "m" });
    expect(real?.media?.size).toBe(900);
  });

  it("a text message carries no descriptor", async () => {
    const { emu, persona, alice, inbox } = world();
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "hi" });
    expect(parseMessage(inbox.last())?.media).toBeUndefined();
  });
});
