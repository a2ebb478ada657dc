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

describe("explicit or in passing", () => {
  const m = compileAddressMatcher(["Mira", "Мира", "ミラ"]);
  it.each([
    ["Mira, are you there?", "Mira", true],
    ["mira you there?", "Mira", true], // the first word, however it is typed
    ["— мира, ты тут?", "Мира", true],
    ["I think Mira knows", "Mira", true],
    ["кто смотрел чемпионат мира?", "Мира", false], // "of the world"
    ["hey mira what's up", "Mira", false],
    ["guys, Mira's birthday is next week, don't tell her 🤫", "Mira", false], // about her, not to her
    ["Mira’s cat is cute", "Mira", false],
    ["Mira, what's up", "Mira", true],
    ["Мира, ты придёшь?", "Мира", true],
    ["ミラさんこんにちは", "ミラ", false], // no spaces between words: found inside a run of letters
    ["ミラ こんにちは", "ミラ", true],
  ])("%s → %s, explicit %s", (text, alias, explicit) => {
    expect(m.nameMatch(text)).toEqual({ alias, explicit });
  });

  it("prefers an explicit match to an earlier one in passing, and finds nothing where there is no name", () => {
    expect(m.nameMatch("the mira thing — Mira, help")).toEqual({ alias: "Mira", explicit: true });
    expect(m.nameMatch("Miranda is here")).toBeUndefined();
  });
});
