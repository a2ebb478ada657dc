import { describe, expect, it } from "vitest";
import { compileAddressMatcher } from "../../src/inbound/addressing";

describe("name matching", () => {
  const m = compileAddressMatcher(["Mira", "Мира"]);
  it.each([
    ["Mira, are you there?", true],
    ["hey mira", true],
    ["@Mira look", true],
    ["Мира, привет", true],
    ["Miranda is here", false],
    ["Амира пришла", false],
    ["admiral", false],
    ["mira_bot", false],
  ])("%s → %s", (text, want) => {
    expect(m.mentionsName(text)).toBe(want);
  });
});
