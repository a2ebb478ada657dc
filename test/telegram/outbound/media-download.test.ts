/**
 * Downloads from the data centre a file lives on, through the product's AccountLink and media
 * fetcher on the emulator (real GramJS borrowing a connection for the other DC).
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Api, TelegramClient } from "telegram";
import { NewMessage, type NewMessageEvent } from "telegram/events/index.js";
import { describe, expect, it } from "vitest";
import { FakeClock } from "../../../src/base/clock";
import { AccountLink } from "../../../src/telegram/connection/account-link";
import { clientIdentity } from "../../../src/config/client-identity";
import { TelegramEmulator } from "../../../emulator";
import { TelegramMediaFetcher } from "../../../src/telegram/outbound/media-download";
import { parseMedia } from "../../../src/telegram/inbound/media-parse";
import { captureLogger } from "../../support/log-capture";
import { tempDir } from "../../support/temp-dir";

const bytes = (n: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 7) % 251));

async function setup(o: { timeoutMs?: number } = {}) {
  const emu = new TelegramEmulator();
  const account = emu.addAccount({ firstName: "Mira", username: "mira_live" });
  const alice = emu.addUser({ firstName: "Alice", username: "alice" });
  const sessionFile = join(tempDir(), "Mira.session");
  writeFileSync(sessionFile, "");
  const log = captureLogger();
  const link = new AccountLink({
    sessionFile,
    credentials: { apiId: 1, apiHash: "0123456789abcdef0123456789abcdef", identity: clientIdentity() },
    logger: log.logger,
    clock: new FakeClock(),
    clientFactory: (s, apiId, apiHash, opts) => {
      const client = new TelegramClient(s, apiId, apiHash, opts);
      emu.attach(client, account);
      return client;
    },
  });
  await link.connect(new AbortController().signal);
  const got: Api.Message[] = [];
  link.client.addEventHandler(
    (e: NewMessageEvent) => void got.push(e.message),
    new NewMessage({ incoming: true }),
  );
  const fetcher = new TelegramMediaFetcher({
    client: link.client,
    lookupChat: () => undefined,
    logger: log.logger,
    ...(o.timeoutMs !== undefined ? { timeoutMs: o.timeoutMs } : {}),
  });
  const dm = emu.dm(account, alice);
  /** Alice sends a document of `size` bytes; returns what the fetcher needs to download it. */
  const sendFile = async (size: number) => {
    await emu.post({
      chat: dm,
      from: alice,
      text: "",
      media: { kind: "document", bytes: bytes(size), mimeType: "application/pdf", fileName: "a.pdf" },
    });
    const m = got.at(-1)!;
    return { chatId: dm.peerId, messageId: m.id, media: parseMedia(m)! };
  };
  const getFiles = () => emu.traffic.fileRequests().length;
  return { emu, account, alice, dm, got, link, fetcher, sendFile, getFiles };
}

describe("downloads from the file's data centre", () => {
  it("asks the file's DC at once (no FILE_MIGRATE round trip), signs in there once, and reuses that after a rebuild — the old borrowed connection closed", async () => {
    const s = await setup();
    try {
      const ref = await s.sendFile(10_000);
      expect(ref.media.file?.dcId).toBe(s.emu.net.fileDc);
      expect(await s.fetcher.download(ref)).toEqual(bytes(10_000));
      expect(s.emu.traffic.fileRequests().map((r) => r.method)).toEqual(["upload.GetFile"]); // no migrate answer first
      expect(s.emu.auth.exportedAuthorizations(s.account)).toBe(1);
      expect(s.emu.net.dcConnections(s.account)).toEqual([s.emu.net.fileDc]);

      await s.link.rebuild(); // the watchdog's reconnect
      expect(s.emu.net.dcConnections(s.account)).toEqual([]); // GramJS's disconnect() alone would leave it open

      expect(await s.fetcher.download(await s.sendFile(20_000))).toEqual(bytes(20_000));
      expect(s.emu.auth.exportedAuthorizations(s.account)).toBe(1); // the DC's key was kept: no new export
      expect(s.emu.net.dcConnections(s.account)).toEqual([s.emu.net.fileDc]);
    } finally {
      await s.link.close();
    }
    expect(s.emu.net.dcConnections(s.account)).toEqual([]);
  });

  it("a GIF's still is downloaded by its thumbnail's size type, also with a fresh reference after the old one expired", async () => {
    const s = await setup();
    try {
      const still = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff]), bytes(900)]);
      const posted = await s.emu.post({
        chat: s.dm,
        from: s.alice,
        text: "",
        media: { kind: "gif", bytes: bytes(5000), mimeType: "video/mp4", thumb: still },
      });
      const m = s.got.at(-1)!;
      const media = parseMedia(m)!;
      const ref = {
        chatId: s.dm.peerId,
        messageId: m.id,
        media: { ...media, file: { ...media.file!, thumb: media.still!.thumb }, size: media.still!.size! },
      };
      expect(await s.fetcher.download(ref)).toEqual(still);
      s.emu.chats.expireFileReference(s.dm, posted.id);
      expect(await s.fetcher.download(ref)).toEqual(still);
      expect(s.emu.traffic.methods(s.account)).toContain("messages.GetMessages");
    } finally {
      await s.link.close();
    }
  });

  it("the file's DC answers AUTH_KEY_UNREGISTERED after a sign-in that failed half-way: that DC's key and connection are dropped, and the download is tried once more, signed in anew", async () => {
    const s = await setup();
    try {
      const ref = await s.sendFile(10_000);
      s.emu.faults.failNext("auth.ImportAuthorization", "AUTH_BYTES_INVALID");
      expect(await s.fetcher.download(ref)).toEqual(bytes(10_000));
      expect(s.emu.auth.exportedAuthorizations(s.account)).toBe(2);
      expect(s.emu.net.dcConnections(s.account)).toEqual([s.emu.net.fileDc]);
      // The new key is kept: the next download signs in nowhere.
      expect(await s.fetcher.download(ref)).toEqual(bytes(10_000));
      expect(s.emu.auth.exportedAuthorizations(s.account)).toBe(2);
    } finally {
      await s.link.close();
    }
  });

  it("a DC that keeps refusing is tried once more, not forever", async () => {
    const s = await setup();
    try {
      const ref = await s.sendFile(10_000);
      s.emu.faults.failNext("auth.ImportAuthorization", "AUTH_BYTES_INVALID", { times: 2 });
      await expect(s.fetcher.download(ref)).rejects.toMatchObject({ errorMessage: "AUTH_KEY_UNREGISTERED" });
      expect(s.emu.auth.exportedAuthorizations(s.account)).toBe(2);
    } finally {
      await s.link.close();
    }
  });

  it("a download past its bound is cancelled: no further chunk is asked for", async () => {
    const s = await setup({ timeoutMs: 250 });
    try {
      const ref = await s.sendFile(10 * 128 * 1024); // ten 128 KB chunks
      s.emu.faults.setDelay("upload.GetFile", 100);
      const failed = await s.fetcher.download(ref).catch((e: unknown) => e);
      expect(String(failed)).toMatch(/no answer within 250 ms/);
      const atTimeout = s.getFiles();
      await new Promise((r) => setTimeout(r, 600));
      // At most the chunk in flight when the bound passed; without the cancel all ten would come.
      expect(s.getFiles()).toBeLessThanOrEqual(atTimeout + 1);
      expect(s.getFiles()).toBeLessThan(10);
    } finally {
      s.emu.faults.setDelay("upload.GetFile", 0);
      await s.link.close();
    }
  });
});
