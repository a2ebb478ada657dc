import { describe, expect, it } from "vitest";
import { formatGap } from "../../src/context/envelope";
import { parsePersona } from "../../src/config/persona";
import { buildPlanPrompt } from "../../src/planning/prompt";
import { speakerDirectory } from "../../src/context/speaker-directory";
import type { StoredMessage } from "../../src/store/messages";

const MIN = 60_000;
const H = 60 * MIN;
const D = 24 * H;

describe("a pause between two messages, said as a person would", () => {
  it("says nothing for an hour or less, then hours to the nearest", () => {
    expect(formatGap(59 * MIN)).toBe("");
    expect(formatGap(H)).toBe("");
    expect(formatGap(65 * MIN)).toBe("⟦1 hour later⟧");
    expect(formatGap(3 * H)).toBe("⟦3 hours later⟧");
    expect(formatGap(8 * H + 55 * MIN)).toBe("⟦9 hours later⟧");
  });

  it("a day, then days to the nearest: three days are never '2 days'", () => {
    expect(formatGap(23 * H)).toBe("⟦a day later⟧");
    expect(formatGap(30 * H)).toBe("⟦a day later⟧");
    expect(formatGap(2 * D)).toBe("⟦2 days later⟧");
    expect(formatGap(3 * D)).toBe("⟦3 days later⟧");
    expect(formatGap(2 * D + 23 * H)).toBe("⟦3 days later⟧");
  });

  it("about a week, weeks, months, a year", () => {
    expect(formatGap(7 * D)).toBe("⟦about a week later⟧");
    expect(formatGap(9 * D)).toBe("⟦about a week later⟧");
    expect(formatGap(15 * D)).toBe("⟦about 2 weeks later⟧");
    expect(formatGap(32 * D)).toBe("⟦about a month later⟧");
    expect(formatGap(150 * D)).toBe("⟦about 5 months later⟧");
    expect(formatGap(400 * D)).toBe("⟦about a year later⟧");
    expect(formatGap(800 * D)).toBe("⟦about 2 years later⟧");
  });

  it("reads so in the request: a DM picked up again three days later", () => {
    const persona = parsePersona(
      "# Agent Name\nMira\n\n# Agent Instructions\nBe nice.\n\n# Time Zone\nUTC\n",
      {
        file: "agents/Mira.md",
        promptDirs: [],
      },
    );
    const t = Date.UTC(2026, 10, 20, 18, 0);
    const msg = (id: number, date: number, text: string): StoredMessage => ({
      chatId: "7",
      messageId: id,
      senderId: "7",
      senderName: "Ann",
      date,
      text,
      isAgent: false,
    });
    const a = msg(1, t, "off to the mountains!");
    const b = msg(2, t + 3 * D, "back home, what did I miss?");
    const speakers = speakerDirectory(
      { get: () => undefined, findByUsername: () => undefined },
      { id: "500", name: "Mira" },
    );
    const p = buildPlanPrompt({
      persona,
      chat: { chatId: "7", chatType: "dm", title: "Ann" },
      history: [a],
      targets: [{ messageId: 2 }],
      lookup: (id) => (id === 1 ? a : id === 2 ? b : undefined),
      speakers,
      memories: [],
      now: t + 3 * D + MIN,
    });
    const parts = p.contents[0]!.parts.map((x) => ("text" in x ? x.text : ""));
    const at = parts.indexOf("⟦3 days later⟧");
    expect(at).toBeGreaterThan(0);
    expect(parts[at - 1]).toContain("off to the mountains!");
    expect(parts[at + 1]).toContain("back home");
  });
});
