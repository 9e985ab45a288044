import { createRequire } from 'node:module';
import { Inject, Injectable, Logger, Optional, type OnApplicationBootstrap, type OnApplicationShutdown } from '@nestjs/common';
import { TOOLS_LIST_CHANGED_SUBJECT, ToolListChangedV1 } from '@tenet/contracts';
import { toolSchemaProblem } from '@tenet/json-schema';
import type { MessageBus, Subscription } from '@tenet/messaging';
import { MESSAGE_BUS } from '@tenet/platform-runtime';
import type { Static } from '@sinclair/typebox';
import type * as TypeBoxValue from '@sinclair/typebox/value';
import { serviceRef, ServicesRepository } from './services.repository.js';
import { TOOL_RUNNER, type ToolRunner } from './tool-runner.js';

const logger = new Logger('ToolListRefresh');
// TypeBox's value checker (~250 modules), loaded with the first notice (ADR 0035): most gateways never get one.
const load = createRequire(import.meta.url);
const isToolListChanged = (data: unknown): data is Static<typeof ToolListChangedV1> =>
  (load('@sinclair/typebox/value') as typeof TypeBoxValue).Value.Check(ToolListChangedV1, data);

/**
 * An MCP server said its tool list changed (the executor holding its connection announces it on
 * `TOOLS_LIST_CHANGED_SUBJECT`): the stored service is described again through the executor and stored with its
 * new tools, so the next turn and `GET /services/{name}` see them. The same rule as registration applies: a list
 * with a tool whose parameter schema cannot be used is not stored (the previous list stays, and it is logged).
 * Refreshes of one service run one at a time; notices arriving meanwhile fold into one more refresh.
 */
@Injectable()
export class ToolListRefresh implements OnApplicationBootstrap, OnApplicationShutdown {
  private subscription: Subscription | undefined;
  private readonly running = new Map<string, { again: boolean }>();

  constructor(
    private readonly services: ServicesRepository,
    @Inject(MESSAGE_BUS) private readonly bus: MessageBus,
    @Optional() @Inject(TOOL_RUNNER) private readonly runner?: ToolRunner,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (!this.runner) return;
    this.subscription = await this.bus.listen(TOOLS_LIST_CHANGED_SUBJECT, (data) => {
      if (!isToolListChanged(data)) return;
      this.schedule(data);
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await this.subscription?.stop();
  }

  /** Starts the service's refresh, or folds the notice into the one running. */
  private schedule(notice: ToolListChangedV1): void {
    const current = this.running.get(notice.service_name);
    if (current) {
      current.again = true;
      return;
    }
    const state = { again: false };
    this.running.set(notice.service_name, state);
    void (async () => {
      try {
        do {
          state.again = false;
          await this.refresh(notice).catch((error: unknown) =>
            logger.warn(`could not refresh the tools of ${notice.service_name}: ${error instanceof Error ? error.message : String(error)}`),
          );
        } while (state.again);
      } finally {
        this.running.delete(notice.service_name);
      }
    })();
  }

  private async refresh(notice: ToolListChangedV1): Promise<void> {
    const stored = await this.services.get(notice.service_name);
    // Deleted, or registered again elsewhere since the executor connected: not this registration's notice.
    if (!stored || stored.url !== notice.url || !this.runner) return;
    const { tools, skipped } = await this.runner.describe(serviceRef(stored));
    const unusable = tools.filter((tool) => toolSchemaProblem(tool.parameters) !== undefined).map((tool) => tool.name);
    if (unusable.length > 0) {
      logger.warn(`the new tool list of ${stored.name} was not stored: the parameter schemas of ${unusable.join(', ')} cannot be used`);
      return;
    }
    // The registration may have changed while describing: only the tools are replaced, on the latest registration.
    const latest = await this.services.get(stored.name);
    if (!latest || latest.url !== stored.url) return;
    const unchanged =
      JSON.stringify(latest.tools.map(({ creation_utc: _at, ...tool }) => tool)) === JSON.stringify(tools) &&
      JSON.stringify(latest.skipped ?? []) === JSON.stringify(skipped ?? []);
    if (unchanged) return;
    const { creation_utc: _created, tools: _old, skipped: _skipped, ...registration } = latest;
    await this.services.put({ ...registration, tools, ...(skipped && skipped.length > 0 ? { skipped } : {}) }, new Date());
    logger.log(`${stored.name}: tool list refreshed on the server's notice (${tools.length} tools)`);
  }
}
