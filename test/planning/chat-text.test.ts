import { describe, expect, it } from "vitest";
import { chatText } from "../../src/planning/chat-text";
import { validatePlan } from "../../src/planning/plan-schema";

const clean = (t: string) => chatText(t, "Mira").text;

describe("a send is a chat message, not the request's markup", () => {
  it("drops a copied header, a section label and a pause marker", () => {
    expect(clean("⟦#57 Mira (you) · 15:01⟧ not me, sorry")).toBe("not me, sorry");
    expect(clean("⟦history⟧\nsure thing")).toBe("sure thing");
    expect(clean("⟦3 hours later⟧ oh hi again")).toBe("oh hi again");
    expect(clean("stray ⟧ bracket")).toBe("stray bracket");
  });

  it("drops a copied reply line, whatever it names", () => {
    expect(clean("[↩ reply to #55 [Bob](tg:@bob)]\n> seen my keys\nnope")).toBe("> seen my keys\nnope");
    expect(clean("[↩ reply to #56 Mira (you)] yes that was me")).toBe("yes that was me");
    expect(clean("[↩ reply to deleted msg #9] what was that?")).toBe("what was that?");
    expect(clean("[↩ reply to a message in another chat] ok")).toBe("ok");
  });

  it("turns a reference into a mention Telegram links, or the name", () => {
    expect(clean("ask [Alice](tg:@alice), she knows")).toBe("ask @alice, she knows");
    expect(clean("[Ann](tg:user/123) has the keys")).toBe("Ann has the keys");
    expect(clean("[Bob]\\(tg:user/42) typed that")).toBe("Bob typed that");
    expect(clean("Bob (tg:@bob) said so")).toBe("Bob said so");
  });

  it("drops its own label and heading markers; keeps what people write", () => {
    expect(clean("Mira (you): haha yes")).toBe("haha yes");
    expect(clean("## Plan\n**bold** stays")).toBe("Plan\n**bold** stays");
    const plain = "see [the log](https://example.org/log), #1 fan, 2 * 3 = 6, tg://resolve?domain=x";
    expect(chatText(plain, "Mira")).toEqual({ text: plain, removed: "" });
  });

  it("the validator keeps the cleaned words and refuses a send that was nothing but markup", () => {
    const plan = JSON.stringify({
      tasks: [
        { kind: "send", text: "⟦#7 Mira (you) · 12:00⟧ [↩ reply to #6 [Ann](tg:@ann)] sure @ann" },
        { kind: "send", text: "⟦#8 Mira (you) · 12:01⟧" },
        { kind: "react", emoji: "👍", message_id: 6 },
      ],
    });
    const r = validatePlan(plan, {
      isDm: false,
      stickerSets: [],
      inView: (id) => id === 6,
      selfName: "Mira",
    });
    expect(r.tasks).toEqual([
      { kind: "send", text: "sure @ann" },
      { kind: "react", emoji: "👍", message_id: 6 },
    ]);
    expect(r.rejected).toEqual([
      { index: 1, kind: "send", reason: "the text was only the request's markup (⟦…⟧ headers)" },
    ]);
    expect(r.repaired[0]!.reason).toBe("removed ⟦…⟧ headers, [↩ reply to …] lines");
  });
});
