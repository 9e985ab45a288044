import { createRequire } from 'node:module';
import { isIP } from 'node:net';
import { ConfigError, readSettings, VARIABLES, type Settings } from '@tenet/config';
import { TOOL_ERROR_CODES } from '@tenet/contracts';
import { guardedLookup, isBlockedAddress } from '@tenet/outbound-guard';
import type * as Undici from 'undici';
import type { Agent, RequestInit as UndiciRequestInit } from 'undici';
import { ToolServiceError } from '../errors.js';

/**
 * The executor's outbound policy: which targets it may call and how much it reads back.
 *
 * SSRF guard: a tool service URL whose host resolves to a loopback, private, link-local, unique-local or
 * metadata address is refused with `TOOLS.TARGET_NOT_ALLOWED`, unless `TENET_TOOL_ALLOWED_HOSTS` names it
 * (`host` or `host:port`, comma-separated; `*` allows every target). The check runs at connect time on the
 * addresses actually dialled (DNS rebinding cannot slip past a check made earlier), redirects are never
 * followed, and a response larger than `TENET_TOOL_MAX_RESPONSE_BYTES` (default 1 MiB) is cut off with
 * `TOOLS.RESPONSE_TOO_LARGE`.
 */
export interface OutboundPolicy {
  allowedHosts: readonly string[];
  maxResponseBytes: number;
  /**
   * Executables an MCP stdio service may run (`TENET_TOOL_STDIO_COMMANDS`, exact command strings, `*` for any).
   * Empty by default: running a command on the executor's host is the operator's decision, not a registrant's.
   */
  stdioCommands: readonly string[];
}

export const DEFAULT_MAX_RESPONSE_BYTES = VARIABLES.TENET_TOOL_MAX_RESPONSE_BYTES.fallback;

export class OutboundConfigError extends Error {
  readonly code = 'CONFIG.INVALID';
}

const HOST_ENTRY = /^(\*|\[[0-9A-Fa-f:.]+\](:\d{1,5})?|[A-Za-z0-9.-]+(:\d{1,5})?|[0-9A-Fa-f:]+)$/;

export const OUTBOUND_VARIABLES = ['TENET_TOOL_ALLOWED_HOSTS', 'TENET_TOOL_MAX_RESPONSE_BYTES', 'TENET_TOOL_STDIO_COMMANDS'] as const;

/**
 * Reads `TENET_TOOL_ALLOWED_HOSTS`, `TENET_TOOL_MAX_RESPONSE_BYTES` and `TENET_TOOL_STDIO_COMMANDS`;
 * `extraAllowedHosts` (e.g. the demo service) and `extraStdioCommands` are added.
 */
export function outboundPolicyFromEnv(
  env: Record<string, string | undefined>,
  extraAllowedHosts: readonly string[] = [],
  extraStdioCommands: readonly string[] = [],
): OutboundPolicy {
  let settings: Pick<Settings, (typeof OUTBOUND_VARIABLES)[number]>;
  try {
    settings = readSettings(env, OUTBOUND_VARIABLES);
  } catch (error) {
    throw error instanceof ConfigError ? new OutboundConfigError(error.problems.join('; ')) : error;
  }
  return outboundPolicyOf(settings, extraAllowedHosts, extraStdioCommands);
}

/** The policy from validated settings (`TenetConfig.pick(OUTBOUND_VARIABLES)`) and the host's extra targets and commands. */
export function outboundPolicyOf(
  settings: Pick<Settings, (typeof OUTBOUND_VARIABLES)[number]>,
  extraAllowedHosts: readonly string[] = [],
  extraStdioCommands: readonly string[] = [],
): OutboundPolicy {
  const extras = extraAllowedHosts.map((entry) => entry.trim().toLowerCase()).filter(Boolean);
  const bad = extras.filter((entry) => !HOST_ENTRY.test(entry));
  if (bad.length > 0)
    throw new OutboundConfigError(`allowed tool hosts must be host, host:port or *, got ${bad.map((b) => `"${b}"`).join(', ')}`);
  const stdioCommands = [...settings.TENET_TOOL_STDIO_COMMANDS, ...extraStdioCommands.map((entry) => entry.trim()).filter(Boolean)];
  return {
    allowedHosts: [...new Set([...settings.TENET_TOOL_ALLOWED_HOSTS, ...extras])],
    maxResponseBytes: settings.TENET_TOOL_MAX_RESPONSE_BYTES,
    stdioCommands: [...new Set(stdioCommands)],
  };
}

/** Whether the policy lets an MCP stdio service run `command`; refused with `TOOLS.TARGET_NOT_ALLOWED` otherwise. */
export function assertStdioCommandAllowed(policy: OutboundPolicy, command: string): void {
  if (policy.stdioCommands.includes('*') || policy.stdioCommands.includes(command)) return;
  throw new ToolServiceError(
    TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
    policy.stdioCommands.length === 0
      ? `MCP stdio servers are disabled on this executor: the operator must list the commands they may run in TENET_TOOL_STDIO_COMMANDS (e.g. "npx,node")`
      : `command ${JSON.stringify(command.slice(0, 200))} is not one TENET_TOOL_STDIO_COMMANDS allows (${policy.stdioCommands.join(', ')})`,
  );
}

/** Adds one `host:port` to a comma-separated allow-list value (for hosts that start their own tool service). */
export const appendAllowedHost = (current: string | undefined, hostPort: string): string =>
  [current, hostPort].filter((part) => part && part.trim() !== '').join(',');

/** Loopback, private, link-local (incl. 169.254.169.254 metadata), unique-local, multicast or reserved (@tenet/outbound-guard). */
export { isBlockedAddress };

const notAllowed = (target: string, why: string): ToolServiceError =>
  new ToolServiceError(
    TOOL_ERROR_CODES.TARGET_NOT_ALLOWED,
    `tool service target ${target} is not allowed: ${why} (add it to TENET_TOOL_ALLOWED_HOSTS to allow it)`,
  );

const defaultPort = (url: URL): string => url.port || (url.protocol === 'https:' ? '443' : '80');
const hostOf = (url: URL): string => url.hostname.replace(/^\[|\]$/g, '').toLowerCase();

export function isAllowedByList(policy: OutboundPolicy, url: URL): boolean {
  const host = hostOf(url);
  const port = defaultPort(url);
  return policy.allowedHosts.some(
    (entry) => entry === '*' || entry === host || entry === `${host}:${port}` || entry === `[${host}]:${port}`,
  );
}

/** Connect-time lookup that refuses blocked addresses, so what is checked is what is dialled. */
const lookupRefusingBlocked = guardedLookup((hostname, address) =>
  notAllowed(hostname, `it resolves to the non-public address ${address}`),
);

export type GuardedFetch = (url: string | URL, init?: RequestInit) => Promise<Response>;

/**
 * `fetch` under the policy: refuses disallowed targets, never follows redirects, caps the response body.
 * The MCP transport takes it as its `fetch`, so every adapter goes through the same guard.
 */
export function guardedFetch(policy: OutboundPolicy, options: { streaming?: boolean } = {}): GuardedFetch & { close(): Promise<void> } {
  // `streaming`: for event streams that stay open and quiet for long (MCP notification streams), no idle-body timeout.
  const timeouts = options.streaming ? { bodyTimeout: 0 } : {};
  // undici and the connection pools are made with the first request (ADR 0035): a tool executor that calls no
  // service while idle loads neither.
  let agents: { undici: typeof Undici; open: Agent; guarded: Agent } | undefined;
  const made = (): NonNullable<typeof agents> => {
    if (!agents) {
      const undici = createRequire(import.meta.url)('undici') as typeof Undici;
      agents = {
        undici,
        open: new undici.Agent({ connections: 64, ...timeouts }),
        guarded: new undici.Agent({ connections: 64, ...timeouts, connect: { lookup: lookupRefusingBlocked } }),
      };
    }
    return agents;
  };
  const call = async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input.toString());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw notAllowed(url.origin, 'only http and https are supported');
    if (url.username || url.password) throw notAllowed(`${url.protocol}//${url.host}`, 'credentials in the URL are not supported');
    const allowed = isAllowedByList(policy, url);
    const host = hostOf(url);
    if (!allowed && isIP(host) !== 0 && isBlockedAddress(host)) throw notAllowed(url.host, `${host} is a non-public address`);
    let response;
    try {
      const { undici, open, guarded } = made();
      response = await undici.fetch(url, { ...(init as UndiciRequestInit), redirect: 'manual', dispatcher: allowed ? open : guarded });
    } catch (error) {
      throw causeToolError(error) ?? error;
    }
    if (response.status >= 300 && response.status < 400) {
      await response.body?.cancel().catch(() => undefined);
      throw new ToolServiceError(
        TOOL_ERROR_CODES.HTTP_ERROR,
        `${url.host} answered a redirect (HTTP ${response.status}); redirects are not followed`,
      );
    }
    let total = 0;
    const max = policy.maxResponseBytes;
    const capped = response.body?.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          total += chunk.byteLength;
          if (total > max)
            controller.error(new ToolServiceError(TOOL_ERROR_CODES.RESPONSE_TOO_LARGE, `the response of ${url.host} exceeds ${max} bytes`));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response((capped as ReadableStream<Uint8Array> | undefined) ?? null, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers as unknown as Headers,
    });
  };
  return Object.assign(call, { close: async () => void (agents && (await Promise.all([agents.open.close(), agents.guarded.close()]))) });
}

/** The ToolServiceError somewhere in an error's `cause` chain (undici wraps connect errors in `fetch failed`). */
export function causeToolError(error: unknown): ToolServiceError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && current; depth++) {
    if (current instanceof ToolServiceError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
