/**
 * Where a login's answers come from: the terminal in production (the `input` package, the 2FA
 * password hidden), a script in tests.
 */
import input from "input";
import { LoginError } from "./login-error";

/** The questions a login asks. */
export interface LoginPrompts {
  /** A line of text; an empty answer means `default` when one is given. */
  text(question: string, o?: { readonly default?: string }): Promise<string>;
  /** A line of text that is not shown while typed (the 2FA password). */
  secret(question: string): Promise<string>;
  confirm(question: string, defaultYes: boolean): Promise<boolean>;
}

/**
 * Prompts on the terminal. A closed standard input fails the question at once with a LoginError
 * (inquirer would otherwise wait forever, or let the process end with status 0).
 */
export function terminalPrompts(stdin: NodeJS.ReadStream = process.stdin): LoginPrompts {
  const ask = <T>(question: string, run: () => Promise<T>): Promise<T> => {
    const closed = () =>
      new LoginError(`standard input is closed: no answer to "${question}" (run the login in a terminal)`);
    if (stdin.readableEnded || stdin.destroyed) return Promise.reject(closed());
    return new Promise<T>((resolve, reject) => {
      const onEnd = () => reject(closed());
      stdin.once("end", onEnd);
      stdin.once("close", onEnd);
      run()
        .then(resolve, reject)
        .finally(() => {
          stdin.off("end", onEnd);
          stdin.off("close", onEnd);
        });
    });
  };
  return {
    text: (q, o) =>
      ask(q, () => input.text(q, o?.default !== undefined ? { default: o.default } : {})).then(
        (a) => a.trim() || (o?.default ?? ""),
      ),
    secret: (q) => ask(q, () => input.password(q)),
    confirm: (q, defaultYes) => ask(q, () => input.confirm(q, { default: defaultYes })),
  };
}
