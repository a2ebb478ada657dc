import { describe, expect, it } from "vitest";
import { isRejection } from "../../src/inbound/reception";

const said = (text: string, toHer = false) => isRejection(text, { toHer, name: "Mira" });

describe("the word check for a clear stop", () => {
  it("reads a stop said to her, to the bot or alone as the whole message, in English and Russian", () => {
    for (const t of [
      "shut up bot",
      "nobody asked",
      "STOP",
      "stop.",
      "Mira, stop it please, we are talking here",
      "заткнись",
      "бот, хватит уже",
      "тебя никто не спрашивал",
      "who asked lol",
    ])
      expect(said(t), t).toBe(true);
    // A reply to her message counts however long it is.
    expect(said("honestly could you just shut up for once, this is between me and Tom", true)).toBe(true);
  });

  it("does not read ordinary talk as a stop", () => {
    for (const t of [
      "the bus stop is right by the station",
      "shut up and take my money, that new phone looks amazing",
      "I can't stop laughing at this video you guys",
      "хватит ли нам пиццы на всех, как думаете?",
      "a stopwatch would help",
      "nobody asked me about the date but I am free friday anyway",
      "haha",
      // Short, but questions or said to someone else (a review of the first word check).
      "Пиццы хватит?",
      "Хватит ли времени?",
      "Денег хватит на всех?",
      "Стоп, серьёзно?",
      "стоп-кран",
      "shut up, no way!",
      "Go away? where?",
      "Мирон, хватит спорить",
      "who asked Mira to bring cake?",
    ])
      expect(said(t), t).toBe(false);
  });
});
