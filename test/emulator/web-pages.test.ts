import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { rawOf, world } from "./harness";

const webPageOf = (m: Api.Message) => (m.media as Api.MessageMediaWebPage).webpage;

describe("link previews as Telegram's server attaches them", () => {
  it("a registered page arrives complete: site, title, description and kind in messageMediaWebPage", async () => {
    const { emu, persona, alice, inbox } = world();
    emu.webPages.register("https://news.example/a", {
      siteName: "Example News",
      title: "Rain in Riga",
      description: "Wet week ahead",
      type: "article",
    });
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "look https://news.example/a" });
    const w = webPageOf(inbox.last()) as Api.WebPage;
    expect(w).toBeInstanceOf(Api.WebPage);
    expect([w.url, w.siteName, w.title, w.description, w.type]).toEqual([
      "https://news.example/a",
      "Example News",
      "Rain in Riga",
      "Wet week ahead",
      "article",
    ]);
  });

  it("an unregistered link gets no preview; an empty page gets webPageEmpty", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    await emu.post({ chat: dm, from: alice, text: "https://nowhere.example/x" });
    expect(inbox.last().media).toBeUndefined();
    emu.webPages.register("https://bare.example/", { empty: true });
    await emu.post({ chat: dm, from: alice, text: "https://bare.example/" });
    expect(webPageOf(inbox.last())).toBeInstanceOf(Api.WebPageEmpty);
  });

  it("a pending page arrives as webPagePending, then updateWebPage with the account's next pts completes it", async () => {
    const { emu, persona, alice, client, inbox } = world();
    emu.webPages.register("https://slow.example/p", { title: "Slow page", pending: true });
    await emu.post({ chat: emu.dm(persona, alice), from: alice, text: "https://slow.example/p" });
    const pending = webPageOf(inbox.last()) as Api.WebPagePending;
    expect(pending).toBeInstanceOf(Api.WebPagePending);
    expect(pending.url).toBe("https://slow.example/p");
    const raw = rawOf(client);
    const p0 = emu.updates.state(persona).pts;

    await emu.webPages.complete("https://slow.example/p");

    expect(raw).toHaveLength(1);
    const u = raw[0] as Api.UpdateWebPage;
    expect(u).toBeInstanceOf(Api.UpdateWebPage);
    expect([u.pts, u.ptsCount]).toEqual([p0 + 1, 1]);
    expect((u.webpage as Api.WebPage).title).toBe("Slow page");
    expect((u.webpage as Api.WebPage).id.toString()).toBe(pending.id.toString());
    await expect(emu.webPages.complete("https://slow.example/p")).rejects.toThrow(/already complete/);
  });

  it("in a supergroup the completion is updateChannelWebPage with the channel's pts; via edit it is an edit update without edit_date", async () => {
    const { emu, persona, alice, client } = world();
    const sg = emu.createSupergroup({ title: "SG", members: [persona, alice] });
    emu.webPages.register("https://a.example/1", { title: "One", pending: true });
    emu.webPages.register("https://a.example/2", { title: "Two", pending: true });
    await emu.post({ chat: sg, from: alice, text: "https://a.example/1" });
    await emu.post({ chat: sg, from: alice, text: "https://a.example/2" });
    const raw = rawOf(client);
    const before = emu.updates.channelPts(sg);

    await emu.webPages.complete("https://a.example/1");
    await emu.webPages.complete("https://a.example/2", { via: "edit" });

    const [a, b] = raw as [Api.UpdateChannelWebPage, Api.UpdateEditChannelMessage];
    expect(a).toBeInstanceOf(Api.UpdateChannelWebPage);
    expect(a.pts).toBe(before + 1);
    expect(b).toBeInstanceOf(Api.UpdateEditChannelMessage);
    expect(b.pts).toBe(before + 2);
    const edited = b.message as Api.Message;
    expect((webPageOf(edited) as Api.WebPage).title).toBe("Two");
    expect(edited.editDate).toBeUndefined();
  });

  it("with Telegram's update shapes a DM message with a preview comes in full (short updates carry no media); without one it is short", async () => {
    const { emu, persona, alice, client } = world({ updateShapes: "telegram" });
    emu.webPages.register("https://p.example/", { title: "P" });
    const dm = emu.dm(persona, alice);
    const raw = rawOf(client);
    await emu.post({ chat: dm, from: alice, text: "plain words" });
    await emu.post({ chat: dm, from: alice, text: "https://p.example/" });
    expect(raw[0]).toBeInstanceOf(Api.UpdateShortMessage);
    const full = raw[1] as Api.UpdateNewMessage;
    expect(full).toBeInstanceOf(Api.UpdateNewMessage);
    expect(((full.message as Api.Message).media as Api.MessageMediaWebPage).webpage).toBeInstanceOf(
      Api.WebPage,
    );
  });
});
