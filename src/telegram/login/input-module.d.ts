/** The `input` package (terminal prompts on top of inquirer) ships no types. */
declare module "input" {
  interface Options {
    default?: string | boolean;
  }
  const input: {
    text(label?: string, options?: Options): Promise<string>;
    password(label?: string, options?: Options): Promise<string>;
    confirm(label?: string, options?: Options): Promise<boolean>;
  };
  export default input;
}
