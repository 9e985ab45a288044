import { Module, type DynamicModule } from '@nestjs/common';
import { EdgeAccessModule } from '@tenet/edge';
import { MemoryModule } from '@tenet/memory-service';
import { PlatformModule, type PlatformConfig } from '@tenet/platform-runtime';
import { hostBasics } from './host-basics.js';

/**
 * The memory and knowledge service alone: `tenet.rpc.v1.memory.recall` (queue group `memory-store`) and the REST
 * of knowledge sources and customer memory (`/knowledge/*`, `/customers/{id}/memory*` — route those paths here).
 * It owns the knowledge index (SQLite in TENET_DATA_DIR, ADR 0016) and writes facts to the event log. Its REST has
 * the gateway's edge (EdgeAccessModule): keys, session tokens and workspaces, read from the event log it shares with
 * the gateway — with its own SQLite log only TENET_ADMIN_KEY is known there, so route through the gateway's log.
 */
@Module({})
export class MemoryStoreHostModule {
  static forRoot(config: PlatformConfig): DynamicModule {
    const { imports, controllers } = hostBasics(config);
    return {
      module: MemoryStoreHostModule,
      imports: [...imports, PlatformModule.forRoot(config), EdgeAccessModule, MemoryModule],
      controllers,
    };
  }
}
