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

describe("explicit or in passing, said to her or about her", () => {
  const m = compileAddressMatcher(["Mira", "Мира", "ミラ"]);
  it.each([
    ["Mira, are you there?", "Mira", true, true],
    ["mira you there?", "Mira", true, true], // the first word, however it is typed, with a "you"
    ["— мира, ты тут?", "Мира", true, true],
    ["I think Mira knows", "Mira", true, false], // about her: the addressing call judges it
    ["Mira said the film was great", "Mira", true, false], // opening, then telling of her
    ["mira say six", "Mira", true, true], // opening, then asking her: a vocative without a comma
    ["Mira help me with this", "Mira", true, true],
    ["Mira is late again", "Mira", true, false],
    ["Mira can you help?", "Mira", true, true],
    ["hey Mira! did you see it?", "Mira", true, true],
    ["you coming, Mira?", "Mira", true, true],
    ["what do you think, Mira, about it?", "Mira", true, true],
    ["outstanding in his field 😂 Mira, get it?", "Mira", true, true], // a joke told to her
    ["I told Mira, and she laughed", "Mira", true, false],
    ["thanks Mira", "Mira", true, false], // the cheap call judges it (and says it speaks to her)
    ["кто смотрел чемпионат мира?", "Мира", false, false], // "of the world"
    ["hey mira what's up", "Mira", false, false],
    ["guys, Mira's birthday is next week, don't tell her 🤫", "Mira", false, false], // about her, not to her
    ["Mira’s cat is cute", "Mira", false, false],
    ["Mira, what's up", "Mira", true, true],
    ["Мира, ты придёшь?", "Мира", true, true],
    ["Мира сказала, что фильм классный", "Мира", true, false],
    ["wir grillen am Samstag, Mira hat den Grill", "Mira", true, false],
    ["ミラさんこんにちは", "ミラ", false, false], // no spaces between words: found inside a run of letters
    ["ミラ こんにちは", "ミラ", true, true], // a script without letter case: an explicit match is said to her
  ])("%s → %s, explicit %s, said to her %s", (text, alias, explicit, spokenTo) => {
    expect(m.nameMatch(text)).toEqual({ alias, explicit, spokenTo });
  });

  it("prefers a match said to her, then an explicit one, to an earlier one in passing; finds nothing where there is no name", () => {
    expect(m.nameMatch("the mira thing — Mira, help")).toEqual({
      alias: "Mira",
      explicit: true,
      spokenTo: true,
    });
    expect(m.nameMatch("Mira said so, right, Mira?")).toEqual({
      alias: "Mira",
      explicit: true,
      spokenTo: true,
    });
    expect(m.nameMatch("the mira thing, Mira knows")).toEqual({
      alias: "Mira",
      explicit: true,
      spokenTo: false,
    });
    expect(m.nameMatch("Miranda is here")).toBeUndefined();
  });
});
