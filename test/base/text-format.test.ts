import { describe, expect, it } from "vitest";
import { parseMarkdown } from "../../src/base/text-format";

const md = (s: string) => {
  const f = parseMarkdown(s);
  return {
    text: f.text,
    e: f.entities.map((e) =>
      [e.kind, f.text.slice(e.offset, e.offset + e.length), e.url ?? e.language].filter(
        (x) => x !== undefined,
      ),
    ),
  };
};

describe("parseMarkdown", () => {
  it("turns the markers a chat model writes into entities over the plain text", () => {
    expect(md("**bold**, __also bold__, *it*, _it too_, ~~gone~~ and `x = 1`")).toEqual({
      text: "bold, also bold, it, it too, gone and x = 1",
      e: [
        ["bold", "bold"],
        ["bold", "also bold"],
        ["italic", "it"],
        ["italic", "it too"],
        ["strike", "gone"],
        ["code", "x = 1"],
      ],
    });
  });

  it("nests, and links carry their url (formatting inside a link too)", () => {
    expect(md("**bold _and italic_** see [the **docs**](https://example.org/x?a=1)")).toEqual({
      text: "bold and italic see the docs",
      e: [
        ["bold", "bold and italic"],
        ["italic", "and italic"],
        ["link", "the docs", "https://example.org/x?a=1"],
        ["bold", "docs"],
      ],
    });
  });

  it("counts offsets in UTF-16 units: an emoji before an entity counts two, one inside it too", () => {
    const f = parseMarkdown("😀😀 **hi 👋** ok");
    expect(f.text).toBe("😀😀 hi 👋 ok");
    expect(f.entities).toEqual([{ kind: "bold", offset: 5, length: 5 }]);
  });

  it("a fenced block is pre with its language; nothing inside code is parsed", () => {
    expect(md("look:\n```ts\nconst a = **b**;\n```\ndone")).toEqual({
      text: "look:\nconst a = **b**;\ndone",
      e: [["pre", "const a = **b**;", "ts"]],
    });
  });

  it("leaves alone what is not formatting: arithmetic, snake_case, bullets, an unclosed marker, an escaped one", () => {
    for (const s of [
      "2 * 3 * 4 = 24",
      "2*3*4",
      "use snake_case_names here",
      "* one\n* two",
      "this **never closes",
      "a :* kiss",
      "file_name.txt and other_file.txt",
    ])
      expect(md(s)).toEqual({ text: s, e: [] });
    expect(md("\\*not italic\\*")).toEqual({ text: "*not italic*", e: [] });
  });

  it("a link needs a web, tg or mailto target: anything else stays text", () => {
    expect(md("[x](javascript:alert(1))").e).toEqual([]);
    expect(md("[x](tg://user?id=1)").e).toEqual([["link", "x", "tg://user?id=1"]]);
  });
});
