import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { createHash } from 'node:crypto';
import { TOOL_ERROR_CODES, type ToolServiceV1 } from '@tenet/contracts';
import { ToolServiceError } from '../../errors.js';

type StdioConfig = NonNullable<ToolServiceV1['stdio']>;

export interface StdioServerOptions {
  /** The server said its tool list changed: the new list (already fetched). */
  onToolsChanged?: (service: ToolServiceV1, tools: Tool[]) => void;
  /** A server process exited on its own (it is restarted). */
  onExit?: (service: ToolServiceV1, detail: string) => void;
  clientInfo: { name: string; version: string };
}

const RESTART_DELAYS_MS = [250, 1_000, 5_000, 15_000, 30_000];
/** A process nobody used for this long is stopped (started again on the next use). */
const IDLE_MS = 15 * 60_000;
const MAX_SERVERS = 64;
const STDERR_TAIL = 2_000;

/**
 * One running MCP stdio server: spawned on first use with only the configured environment (plus PATH/HOME-like
 * basics; nothing of the executor's own, so its secrets never reach the child), kept running across calls, and
 * restarted with backoff when it dies. The last lines of its stderr explain a failed start.
 */
class StdioServer {
  private client: Promise<Client> | undefined;
  /** Bumped by every start and stop: a close event of an older process changes nothing. */
  private generation = 0;
  private stderr = '';
  private restarts = 0;
  private restartTimer: NodeJS.Timeout | undefined;
  private idleTimer: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly service: ToolServiceV1,
    private readonly config: StdioConfig,
    private readonly options: StdioServerOptions,
  ) {}

  /** The connected client, starting the process when it is not running. */
  connect(timeoutMs: number, signal: AbortSignal): Promise<Client> {
    if (this.closed)
      return Promise.reject(new ToolServiceError(TOOL_ERROR_CODES.CANCELLED, `the MCP stdio server of ${this.service.name} was stopped`));
    this.touch();
    this.client ??= this.start(timeoutMs, signal);
    return this.client;
  }

  get lastStderr(): string {
    return this.stderr.trim().split('\n').slice(-5).join(' | ').slice(-500);
  }

  private async start(timeoutMs: number, signal: AbortSignal): Promise<Client> {
    const generation = ++this.generation;
    const transport = new StdioClientTransport({
      command: this.config.command,
      args: this.config.args ?? [],
      env: { ...getDefaultEnvironment(), ...(this.config.env ?? {}) },
      stderr: 'pipe',
    });
    transport.stderr?.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    const onToolsChanged = this.options.onToolsChanged;
    const client = new Client(
      this.options.clientInfo,
      onToolsChanged
        ? { listChanged: { tools: { onChanged: (error, tools) => void (!error && tools && onToolsChanged(this.service, tools)) } } }
        : {},
    );
    client.onclose = () => {
      if (generation !== this.generation) return;
      this.client = undefined;
      if (this.closed) return;
      this.options.onExit?.(this.service, this.lastStderr);
      this.scheduleRestart();
    };
    try {
      await client.connect(transport, { signal, timeout: timeoutMs });
      return client;
    } catch (error) {
      if (generation === this.generation) {
        this.generation++;
        this.client = undefined;
      }
      await client.close().catch(() => undefined);
      const reason = error instanceof Error ? error.message : String(error);
      throw new ToolServiceError(
        TOOL_ERROR_CODES.SERVICE_UNREACHABLE,
        `the MCP stdio server ${JSON.stringify(this.config.command)} of ${this.service.name} did not start: ${reason.slice(0, 300)}${this.lastStderr ? ` (stderr: ${this.lastStderr})` : ''}`,
        !/ENOENT|EACCES/.test(reason),
      );
    }
  }

  /** A server that died is started again after a growing delay; one that keeps dying is left for the next use to start. */
  private scheduleRestart(): void {
    const delay = RESTART_DELAYS_MS[this.restarts];
    if (delay === undefined) return;
    this.restarts++;
    clearTimeout(this.restartTimer);
    this.restartTimer = setTimeout(() => {
      this.restartTimer = undefined;
      if (this.closed || this.client) return;
      const client = this.start(30_000, AbortSignal.timeout(30_000));
      this.client = client;
      client.then(
        // Up for a minute again: a later death starts the backoff from the beginning.
        () => void setTimeout(() => (this.restarts = 0), 60_000).unref(),
        () => this.scheduleRestart(),
      );
    }, delay);
    this.restartTimer.unref();
  }

  private touch(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => void this.stop(false), IDLE_MS);
    this.idleTimer.unref();
  }

  /** Stops the process: idle (a later use starts it again) or for good (replaced, shutting down). */
  async stop(forGood: boolean): Promise<void> {
    if (forGood) this.closed = true;
    this.generation++;
    clearTimeout(this.restartTimer);
    clearTimeout(this.idleTimer);
    const client = this.client;
    this.client = undefined;
    await client?.then((c) => c.close()).catch(() => undefined);
  }
}

/** The executor's stdio MCP servers, one process per service configuration (bounded; the least recently used is stopped). */
export class StdioServers {
  private readonly servers = new Map<string, StdioServer>();

  constructor(private readonly options: StdioServerOptions) {}

  server(service: ToolServiceV1 & { stdio: StdioConfig }): StdioServer {
    const key = `${service.name}\u0000${createHash('sha256').update(JSON.stringify(service.stdio)).digest('hex')}`;
    let server = this.servers.get(key);
    if (server) {
      this.servers.delete(key);
    } else {
      server = new StdioServer(service, service.stdio, this.options);
      // A changed configuration of the same service replaces its process.
      for (const [other, running] of this.servers) if (other.startsWith(`${service.name}\u0000`)) void this.evict(other, running);
      const oldest = this.servers.size >= MAX_SERVERS ? this.servers.entries().next().value : undefined;
      if (oldest) void this.evict(oldest[0], oldest[1]);
    }
    this.servers.set(key, server);
    return server;
  }

  private async evict(key: string, server: StdioServer): Promise<void> {
    this.servers.delete(key);
    await server.stop(true);
  }

  async close(): Promise<void> {
    const all = [...this.servers.entries()];
    this.servers.clear();
    await Promise.all(all.map(([, server]) => server.stop(true)));
  }
}
