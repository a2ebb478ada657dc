import { Api } from "telegram";
import { describe, expect, it } from "vitest";
import { domainOf, linkParts, renderPreview } from "../../src/base/link-preview";
import { renderMessageText } from "../../src/base/media-descriptor";
import { parseMessage } from "../../src/telegram/inbound/parse";
import { world } from "../emulator/harness";

describe("link previews read as a person sees them", () => {
  it("a complete preview: domain, site, kind, title, description; a pending or empty one: the domain", () => {
    expect(
      renderPreview({
        url: "https://www.youtube.com/watch?v=1",
        site: "YouTube",
        type: "video",
        title: "Cats",
        description: "Ten cats",
      }),
    ).toBe('[link youtube.com, video: "Cats" — Ten cats]');
    expect(renderPreview({ url: "https://nytimes.com/x", site: "The New York Times", title: "T" })).toBe(
      '[link nytimes.com (The New York Times): "T"]',
    );
    expect(renderPreview({ url: "https://slow.example/", pending: true, title: "x" })).toBe(
      "[link slow.example]",
    );
    expect(renderPreview({ url: "https://none.example/", empty: true })).toBe("[link none.example]");
  });

  it("a preview with no title, no description or a malformed URL still reads sensibly", () => {
    expect(renderPreview({ url: "https://t.example/" })).toBe("[link t.example]");
    expect(renderPreview({ url: "https://t.example/", description: "only words" })).toBe(
      "[link t.example: only words]",
    );
    expect(renderPreview({ url: "http://[broken", title: "T" })).toBe('[link http://(broken: "T"]');
    expect(renderPreview({})).toBe("[link]");
    expect(domainOf("javascript:alert(1)")).toBeUndefined();
    expect(domainOf("example.com/x")).toBe("example.com");
  });

  it("links typed without a preview show their domains, each once, at most three", () => {
    expect(linkParts("see https://a.example/x, www.b.example and https://a.example/y")).toBe(
      "[link a.example] [link b.example]",
    );
    expect(linkParts("no links here")).toBe("");
    expect(linkParts("http://1.example http://2.example http://3.example http://4.example")).toBe(
      "[link 1.example] [link 2.example] [link 3.example]",
    );
  });

  it("parse keeps the preview's strings bounded (a 10 MB description stays 300 characters) and reads webPagePending / webPageEmpty", async () => {
    const { emu, persona, alice, inbox } = world();
    const dm = emu.dm(persona, alice);
    emu.webPages.register("https://big.example/", { title: "Big", description: "x".repeat(10_000_000) });
    emu.webPages.register("https://slow.example/", { title: "Later", pending: true });
    emu.webPages.register("https://none.example/", { empty: true });
    for (const u of ["https://big.example/", "https://slow.example/", "https://none.example/"])
      await emu.post({ chat: dm, from: alice, text: `look ${u}` });
    const [big, slow, none] = inbox.events.map((e) => parseMessage(e.message)!);
    expect(big!.media).toMatchObject({ kind: "webpage", caption: true, webpage: { title: "Big" } });
    expect(Array.from(big!.media!.webpage!.description!)).toHaveLength(300);
    expect(big!.text).toBe("look https://big.example/");
    expect(slow!.media?.webpage).toMatchObject({ pending: true, url: "https://slow.example/" });
    expect(slow!.media?.webpage?.id).toMatch(/^\d+$/);
    expect(none!.media?.webpage).toMatchObject({ empty: true });
    expect(renderMessageText(slow!.text, slow!.media!)).toBe(
      "[link slow.example]\nlook https://slow.example/",
    );
    expect(inbox.events[0]!.message.media).toBeInstanceOf(Api.MessageMediaWebPage);
  });
});
