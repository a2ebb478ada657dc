/**
 * The 2FA step of a login: account.getPassword (the account's hint and a fresh SRP challenge),
 * the password asked with hidden input, and auth.checkPassword with the SRP proof GramJS
 * computes — the password itself never leaves this process.
 */
import { Api } from "telegram";
import { computeCheck } from "telegram/Password.js";
import { explain, rpcName, userOf, type LoginContext } from "./context";
import { LoginError } from "./login-error";

const TRIES = 3;

export async function checkPassword(ctx: LoginContext): Promise<Api.User> {
  const { o } = ctx;
  o.out("This account has two-step verification: its cloud password is needed.");
  for (let attempt = 1; attempt <= TRIES; attempt++) {
    let params: Api.account.Password;
    try {
      params = await ctx.call(new Api.account.GetPassword());
    } catch (e) {
      throw explain(e);
    }
    if (!params.hasPassword)
      throw new LoginError(
        "Telegram asked for the 2FA password but reports none is set; run the login again.",
      );
    const hint = params.hint ? ` (hint: ${params.hint})` : "";
    const password = await o.prompts.secret(`2FA password${hint}`);
    const left = TRIES - attempt;
    if (password === "") {
      if (left > 0) o.out(`The password is empty (${left} ${left === 1 ? "try" : "tries"} left).`);
      continue;
    }
    try {
      return userOf(
        await ctx.call(new Api.auth.CheckPassword({ password: await computeCheck(params, password) })),
      );
    } catch (e) {
      if (rpcName(e) !== "PASSWORD_HASH_INVALID") throw explain(e);
      if (left > 0) o.out(`Wrong password (${left} ${left === 1 ? "try" : "tries"} left).`);
    }
  }
  throw new LoginError(`The 2FA password was wrong ${TRIES} times; run the login again.`);
}
