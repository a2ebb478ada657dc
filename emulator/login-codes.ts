/**
 * Login codes as Telegram makes and reads them: the ways they go by default, what one is (digits,
 * a secret word or phrase), how a typed one is compared, and how phones and e-mails are written.
 */
import { randomInt } from "node:crypto";
import type { CodeDelivery } from "./types";

/** Digits of a code sent by the app, SMS, a call or e-mail. */
const CODE_LENGTH = 5;

/** The account's first way, and those auth.resendCode moves to, when none is given. */
export const DEFAULT_CODE_DELIVERY: readonly CodeDelivery[] = ["app", "sms", "call"];

/** The words secret-word and secret-phrase codes are made of. */
const WORDS = [
  "maple",
  "orbit",
  "tundra",
  "velvet",
  "quartz",
  "harbor",
  "lantern",
  "meadow",
  "cobalt",
  "sparrow",
  "ember",
  "glacier",
];

/** A new code for a way of delivery: digits, or a secret word or phrase with its first letter / word. */
export function drawCode(kind: CodeDelivery): { readonly code: string; readonly beginning?: string } {
  if (kind === "sms-word") {
    const code = WORDS[randomInt(WORDS.length)]!;
    return { code, beginning: code[0]! };
  }
  if (kind === "sms-phrase") {
    const code = [0, 1, 2].map(() => WORDS[randomInt(WORDS.length)]!).join(" ");
    return { code, beginning: code.split(" ")[0]! };
  }
  return { code: String(randomInt(10 ** (CODE_LENGTH - 1), 10 ** CODE_LENGTH)) };
}

/** A code as compared: lower case, single spaces (a secret phrase typed with extra spaces is still right). */
export function normaliseCode(code: string): string {
  return code.trim().toLowerCase().replace(/\s+/g, " ");
}

/** "m***@example.com": how Telegram shows a login e-mail it sent a code to. */
export function emailPattern(email: string): string {
  const [user = "", domain = ""] = email.split("@");
  return `${user.slice(0, 1)}***@${domain}`;
}

/** `+` and 5–15 digits after removing spaces, dashes, dots and parentheses; else undefined. */
export function normalisePhone(raw: string): string | undefined {
  const digits = raw.replace(/[\s\-.()]/g, "").replace(/^\+/, "");
  return /^\d{5,15}$/.test(digits) ? `+${digits}` : undefined;
}
