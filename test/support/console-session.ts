/**
 * Sign in to the operator console as its page does: trade the token of the printed URL
 * (`…/console/?token=…`) for a session (POST api/session from the console's own origin) and
 * return the header that carries it on every API call.
 */
export async function consoleSession(url: string): Promise<{ readonly "x-console-session": string }> {
  const u = new URL(url);
  const res = await fetch(`${u.origin}/console/api/session`, {
    method: "POST",
    headers: { origin: u.origin, "content-type": "application/json" },
    body: JSON.stringify({ token: u.searchParams.get("token") }),
  });
  if (!res.ok) throw new Error(`console sign-in: ${res.status} ${await res.text()}`);
  return { "x-console-session": ((await res.json()) as { session: string }).session };
}
