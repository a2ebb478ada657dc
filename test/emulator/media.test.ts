import { Api, errors } from "telegram";
import { describe, expect, it } from "vitest";
import { world } from "./harness";

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => i % 251));

describe("emulator: media", () => {
  it("posts a photo as a real Api.Photo with a file reference, and serves it through upload.getFile in chunks (downloadMedia)", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const jpeg = bytes(300_000);
    await emu.post({ chat: sg, from: alice, text: "look", media: { kind: "photo", bytes: jpeg } });
    const m = inbox.last();
    expect(m.media).toBeInstanceOf(Api.MessageMediaPhoto);
    const photo = (m.media as Api.MessageMediaPhoto).photo as Api.Photo;
    expect(photo.fileReference.length).toBeGreaterThan(0);
    expect(m.message).toBe("look");
    const got = await client.downloadMedia(m, {});
    expect(Buffer.compare(got as Buffer, jpeg)).toBe(0);
    // 300,000 bytes in GramJS's chunks (128 KB parts for this size): more than one request.
    expect(emu.traffic.fileRequests().length).toBeGreaterThan(1);
  });

  it("posts voice notes, video notes, GIFs and files as documents with the attributes GramJS reads", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "voice", bytes: bytes(100), mimeType: "audio/ogg", duration: 12 },
    });
    expect(inbox.last().voice).toBeDefined();
    expect((inbox.last().media as Api.MessageMediaDocument).voice).toBe(true);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "video_note", bytes: bytes(100), mimeType: "video/mp4", duration: 5 },
    });
    expect(inbox.last().videoNote).toBeDefined();
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(100), mimeType: "video/mp4" },
    });
    expect(inbox.last().gif).toBeDefined();
    await emu.post({
      chat: dm,
      from: alice,
      text: "the report",
      media: { kind: "document", bytes: bytes(2000), mimeType: "application/pdf", fileName: "report.pdf" },
    });
    expect(inbox.last().file?.name).toBe("report.pdf");
    expect(inbox.last().file?.size?.toString()).toBe("2000");
    expect(emu.history(dm).map((h) => h.media)).toEqual(["voice", "video_note", "gif", "document"]);
  });

  it("a GIF and an animated sticker carry a still thumbnail (JPEG, WebP) in `thumbs`, downloaded by its size type; a static sticker has none", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    const still = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), bytes(500)]);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(9000), mimeType: "video/mp4", thumb: still },
    });
    const gif = (inbox.last().media as Api.MessageMediaDocument).document as Api.Document;
    expect(gif.thumbs).toEqual([expect.objectContaining({ className: "PhotoSize", type: "m", size: 504 })]);
    const location = (thumbSize: string) =>
      new Api.InputDocumentFileLocation({
        id: gif.id,
        accessHash: gif.accessHash,
        fileReference: gif.fileReference,
        thumbSize,
      });
    expect(Buffer.compare((await client.downloadFile(location("m"), {})) as Buffer, still)).toBe(0);
    expect(((await client.downloadFile(location(""), {})) as Buffer).length).toBe(9000); // the GIF itself
    await expect(client.downloadFile(location("x"), {})).rejects.toMatchObject({
      errorMessage: "LOCATION_INVALID",
    });
    // GramJS's own thumbnail download picks it too.
    expect(Buffer.compare((await client.downloadMedia(inbox.last(), { thumb: 0 })) as Buffer, still)).toBe(0);

    // Without one given, a GIF still has Telegram's JPEG; none when told so.
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(10), mimeType: "video/mp4" },
    });
    const made = (inbox.last().media as Api.MessageMediaDocument).document as Api.Document;
    expect(made.thumbs).toHaveLength(1);
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "gif", bytes: bytes(10), mimeType: "video/mp4", thumb: null },
    });
    expect(
      ((inbox.last().media as Api.MessageMediaDocument).document as Api.Document).thumbs,
    ).toBeUndefined();

    emu.addStickerSet({
      shortName: "Moving",
      title: "Moving",
      stickers: [{ emoji: "🏃", mimeType: "video/webm", bytes: bytes(300) }, { emoji: "🧍" }],
    });
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "sticker", set: "Moving", emoji: "🏃" },
    });
    const moving = (inbox.last().media as Api.MessageMediaDocument).document as Api.Document;
    expect(moving.thumbs).toEqual([expect.objectContaining({ type: "m" })]);
    const webp = (await client.downloadMedia(inbox.last(), { thumb: 0 })) as Buffer;
    expect(webp.subarray(8, 12).toString()).toBe("WEBP");
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "sticker", set: "Moving", emoji: "🧍" },
    });
    expect(
      ((inbox.last().media as Api.MessageMediaDocument).document as Api.Document).thumbs,
    ).toBeUndefined();
  });

  it("posts albums as messages sharing grouped_id", async () => {
    const { emu, persona, alice, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    await emu.post({
      chat: sg,
      from: alice,
      text: "trip",
      media: { kind: "photo", bytes: bytes(10) },
      groupedId: 77,
    });
    await emu.post({
      chat: sg,
      from: alice,
      text: "",
      media: { kind: "photo", bytes: bytes(11) },
      groupedId: 77,
    });
    expect(inbox.events.map((e) => e.message.groupedId?.toString())).toEqual(["77", "77"]);
  });

  it("answers FILE_REFERENCE_EXPIRED for a stale reference; the message fetched again carries a fresh one that works", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    const posted = await emu.post({
      chat: sg,
      from: alice,
      text: "",
      media: { kind: "photo", bytes: bytes(5000) },
    });
    const stale = inbox.last();
    emu.chats.expireFileReference(sg, posted.id);
    await expect(client.downloadMedia(stale, {})).rejects.toMatchObject({
      errorMessage: "FILE_REFERENCE_EXPIRED",
    });
    const [fresh] = await client.getMessages(sg.peerId, { ids: [posted.id] });
    const oldRef = ((stale.media as Api.MessageMediaPhoto).photo as Api.Photo).fileReference;
    const newRef = ((fresh!.media as Api.MessageMediaPhoto).photo as Api.Photo).fileReference;
    expect(Buffer.compare(oldRef, newRef)).not.toBe(0);
    expect(((await client.downloadMedia(fresh!, {})) as Buffer).length).toBe(5000);
    expect(emu.traffic.methods()).toContain("channels.GetMessages");
  });

  it("a refetched DM message (messages.getMessages) also carries the fresh reference", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    const posted = await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "voice", bytes: bytes(900), mimeType: "audio/ogg", duration: 3 },
    });
    emu.chats.expireFileReference(dm, posted.id);
    await expect(client.downloadMedia(inbox.last(), {})).rejects.toBeInstanceOf(errors.RPCError);
    const res = (await client.invoke(
      new Api.messages.GetMessages({ id: [new Api.InputMessageID({ id: posted.id })] }),
    )) as Api.messages.Messages;
    const doc = ((res.messages[0] as Api.Message).media as Api.MessageMediaDocument).document as Api.Document;
    const buf = await client.downloadFile(
      new Api.InputDocumentFileLocation({
        id: doc.id,
        accessHash: doc.accessHash,
        fileReference: doc.fileReference,
        thumbSize: "",
      }),
      {
        fileSize: doc.size,
      },
    );
    expect((buf as Buffer).length).toBe(900);
  });

  it("posts stickers of an added set; the set is served with its documents and the sticker file downloads", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    emu.addStickerSet({ shortName: "EmuCats", title: "Cats", stickers: [{ emoji: "😺" }, { emoji: "😿" }] });
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "sticker", set: "EmuCats", emoji: "😿" },
    });
    const m = inbox.last();
    const doc = (m.media as Api.MessageMediaDocument).document as Api.Document;
    const attr = doc.attributes.find(
      (a): a is Api.DocumentAttributeSticker => a instanceof Api.DocumentAttributeSticker,
    )!;
    expect(attr.alt).toBe("😿");
    const set = (await client.invoke(
      new Api.messages.GetStickerSet({ stickerset: attr.stickerset, hash: 0 }),
    )) as Api.messages.StickerSet;
    expect(set.set.shortName).toBe("EmuCats");
    expect(set.documents.map((d) => d.id.toString())).toContain(doc.id.toString());
    const file = (await client.downloadMedia(m, {})) as Buffer;
    expect(file.subarray(0, 4).toString()).toBe("RIFF");
  });

  it("refuses chunk sizes Telegram refuses", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "", media: { kind: "photo", bytes: bytes(10) } });
    const photo = (inbox.last().media as Api.MessageMediaPhoto).photo as Api.Photo;
    const location = new Api.InputPhotoFileLocation({
      id: photo.id,
      accessHash: photo.accessHash,
      fileReference: photo.fileReference,
      thumbSize: "x",
    });
    await expect(
      client.invoke(new Api.upload.GetFile({ location, offset: 0 as never, limit: 1000 }), photo.dcId),
    ).rejects.toMatchObject({ errorMessage: "LIMIT_INVALID" });
  });
});

describe("files on another data centre", () => {
  it("asked on the main connection, a file on another DC answers FILE_MIGRATE_X (its dc_id); on that DC it is served", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "", media: { kind: "photo", bytes: bytes(10) } });
    const photo = (inbox.last().media as Api.MessageMediaPhoto).photo as Api.Photo;
    expect(photo.dcId).toBe(emu.net.fileDc);
    const location = new Api.InputPhotoFileLocation({
      id: photo.id,
      accessHash: photo.accessHash,
      fileReference: photo.fileReference,
      thumbSize: "x",
    });
    const req = () => new Api.upload.GetFile({ location, offset: 0 as never, limit: 4096 });
    const migrate = await client.invoke(req()).catch((e: unknown) => e);
    expect(migrate).toBeInstanceOf(errors.FileMigrateError);
    expect((migrate as errors.FileMigrateError).newDc).toBe(emu.net.fileDc);
    const file = (await client.invoke(req(), photo.dcId)) as Api.upload.File;
    expect(Buffer.from(file.bytes)).toEqual(bytes(10).subarray(0, 4096));
  });

  it("a borrowed connection to another DC is signed in by exporting the authorization once (imported inside initConnection), and reused", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "", media: { kind: "photo", bytes: bytes(10) } });
    const photo = (inbox.last().media as Api.MessageMediaPhoto).photo as Api.Photo;
    expect(emu.net.dcConnections(persona)).toEqual([]);
    const first = await client.downloadFile(
      new Api.InputPhotoFileLocation({
        id: photo.id,
        accessHash: photo.accessHash,
        fileReference: photo.fileReference,
        thumbSize: "x",
      }),
      { dcId: photo.dcId },
    );
    expect(first).toEqual(bytes(10));
    expect(emu.net.dcConnections(persona)).toEqual([emu.net.fileDc]);
    expect(emu.auth.exportedAuthorizations(persona)).toBe(1);
    expect(emu.traffic.methods(persona).filter((m) => m === "auth.ExportAuthorization")).toHaveLength(1);
    // The borrowed connection is reused: no second export.
    await client.downloadFile(
      new Api.InputPhotoFileLocation({
        id: photo.id,
        accessHash: photo.accessHash,
        fileReference: photo.fileReference,
        thumbSize: "x",
      }),
      { dcId: photo.dcId },
    );
    expect(emu.auth.exportedAuthorizations(persona)).toBe(1);
    // An exported authorization is for the DC it names, once.
    const e = (await client
      .invoke(new Api.auth.ExportAuthorization({ dcId: 4 }))
      .catch((x: unknown) => x)) as errors.RPCError;
    expect(e.errorMessage).toBe("DC_ID_INVALID"); // the DC the request came to
  });

  it("a failed sign-in on another DC leaves GramJS a key it believes signed in: downloads there answer AUTH_KEY_UNREGISTERED until that DC's key and connection are dropped", async () => {
    const { emu, persona, alice, client, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "", media: { kind: "photo", bytes: bytes(10) } });
    const photo = (inbox.last().media as Api.MessageMediaPhoto).photo as Api.Photo;
    const download = () =>
      client.downloadFile(
        new Api.InputPhotoFileLocation({
          id: photo.id,
          accessHash: photo.accessHash,
          fileReference: photo.fileReference,
          thumbSize: "x",
        }),
        { dcId: photo.dcId },
      );
    // The import fails once; GramJS's _connectSender retries with the key it made and skips the import.
    emu.faults.failNext("auth.ImportAuthorization", "AUTH_BYTES_INVALID");
    await expect(download()).rejects.toMatchObject({ errorMessage: "AUTH_KEY_UNREGISTERED", code: 401 });
    await expect(download()).rejects.toMatchObject({ errorMessage: "AUTH_KEY_UNREGISTERED" });
    expect(emu.auth.exportedAuthorizations(persona)).toBe(1);

    // GramJS's own clean-up for that DC (what it means to do on AUTH_KEY_UNREGISTERED): the key and
    // the connection go; the next borrowed connection makes a new key and signs it in.
    await (client as unknown as { _cleanupExportedSender(dc: number): Promise<void> })._cleanupExportedSender(
      photo.dcId,
    );
    expect(await download()).toEqual(bytes(10));
    expect(emu.auth.exportedAuthorizations(persona)).toBe(2);
  });
});
