export interface Reply<T = unknown> {
  status: number;
  body: T;
}

/** A JSON client for a Tenet host; `key` is sent as a Bearer token when given. */
export const jsonClient =
  (url: () => string, key?: () => string | undefined) =>
  async <T = unknown>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Reply<T>> => {
    const bearer = key?.();
    const response = await fetch(`${url()}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}), ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      /* not JSON */
    }
    return { status: response.status, body: parsed as T };
  };
