import { Inject, Injectable } from '@nestjs/common';
import type { EventStore, StoredEvent } from '@tenet/event-store';
import { EVENT_STORE } from '@tenet/platform-runtime';
import {
  newId,
  compareKeys,
  decodeCursor,
  encodeCursor,
  type PageRequest,
  crudEvolve,
  ResourceIdTakenError,
  ResourceStreams,
  assertNoViolations,
} from '@tenet/edge';
import { TagReferences } from '../tags/tag-references.js';
import { patchList } from '../tags/tag.dto.js';
import {
  GUEST_CUSTOMER,
  GUEST_CUSTOMER_ID,
  patchRecord,
  type CustomerCreationDto,
  type CustomerPage,
  type CustomerUpdateDto,
  type CustomerView,
} from './customer.dto.js';

const PREFIX = 'customer-';
const crud = crudEvolve<CustomerView>('Customer');

/** The guest's stream has no CustomerCreated: it folds from the built-in guest, so only changes are stored. */
function evolve(
  current: CustomerView | undefined,
  event: Pick<StoredEvent, 'type' | 'data'> & { streamId?: string },
): CustomerView | undefined {
  return crud(current ?? (event.streamId === PREFIX + GUEST_CUSTOMER_ID ? GUEST_CUSTOMER : undefined), event);
}

/** Customers are event-sourced like agents: one `customer-<id>` stream each. */
@Injectable()
export class CustomersRepository {
  private readonly streams: ResourceStreams<CustomerView>;

  constructor(
    @Inject(EVENT_STORE) store: EventStore,
    private readonly tagRefs: TagReferences,
  ) {
    this.streams = new ResourceStreams(store, PREFIX, 'Customer', evolve);
  }

  async create(input: CustomerCreationDto, now: Date): Promise<CustomerView> {
    const id = input.id ?? newId();
    if (id === GUEST_CUSTOMER_ID) throw new ResourceIdTakenError(`customer id ${id} is already taken`);
    const tags = [...new Set(input.tags ?? [])];
    assertNoViolations(await this.tagRefs.check(tags));
    return this.streams.create(id, { id, name: input.name, metadata: input.metadata ?? {}, tags, creation_utc: now.toISOString() });
  }

  async get(id: string): Promise<CustomerView | undefined> {
    return (await this.streams.get(id)) ?? (id === GUEST_CUSTOMER_ID ? GUEST_CUSTOMER : undefined);
  }

  /** Every customer, the guest first (as Parlant lists it). */
  async list(): Promise<CustomerView[]> {
    const stored = await this.streams.list();
    const guest = stored.find((c) => c.id === GUEST_CUSTOMER_ID) ?? GUEST_CUSTOMER;
    return [guest, ...stored.filter((c) => c.id !== GUEST_CUSTOMER_ID)];
  }

  /**
   * Parlant's cursor pagination: the guest heads the first page, the rest follow in creation order. `keep` narrows
   * the list before paging (a workspace sees its own customers), so `total_count` counts what the caller may see.
   */
  async page(request: PageRequest, keep: (all: CustomerView[]) => Promise<CustomerView[]> = async (all) => all): Promise<CustomerPage> {
    const all = await keep(await this.list());
    const guest = all.find((c) => c.id === GUEST_CUSTOMER_ID);
    const others = all.filter((c) => c.id !== GUEST_CUSTOMER_ID);
    const ordered = [...(guest ? [guest] : []), ...others.sort(compareKeys(request.sort))];
    let start = 0;
    if (request.cursor !== undefined) {
      const after = decodeCursor(request.cursor);
      const compare = compareKeys(request.sort);
      const first = guest ? 1 : 0;
      start = after.id === GUEST_CUSTOMER_ID ? first : ordered.findIndex((c, i) => i >= first && compare(c, after) > 0);
      if (start === -1) start = ordered.length;
    }
    const items = ordered.slice(start, start + request.limit);
    const last = items.at(-1);
    const hasMore = start + items.length < ordered.length;
    return { items, total_count: ordered.length, has_more: hasMore, ...(hasMore && last ? { next_cursor: encodeCursor(last) } : {}) };
  }

  async update(id: string, changes: CustomerUpdateDto): Promise<CustomerView | undefined> {
    if (id === GUEST_CUSTOMER_ID && !(await this.streams.get(id))) return this.updateGuestFirstTime(changes);
    return this.streams.update(id, async (current) => this.resolve(current, changes));
  }

  async delete(id: string): Promise<boolean> {
    if (id === GUEST_CUSTOMER_ID)
      assertNoViolations([
        { loc: ['path', 'customer_id'], msg: 'customer_id guest is built in and cannot be deleted', type: 'value_error.builtin' },
      ]);
    return this.streams.delete(id);
  }

  private async resolve(current: CustomerView, changes: CustomerUpdateDto): Promise<Partial<CustomerView>> {
    const data: Partial<CustomerView> = {};
    if (changes.name !== undefined) data.name = changes.name;
    if (changes.metadata) data.metadata = patchRecord(current.metadata, changes.metadata);
    if (changes.tags) {
      assertNoViolations(await this.tagRefs.check(changes.tags.add ?? [], ['tags', 'add']));
      data.tags = patchList(current.tags, changes.tags);
    }
    return data;
  }

  /** The guest's stream does not exist until its first change; a concurrent first change falls back to `update`. */
  private async updateGuestFirstTime(changes: CustomerUpdateDto): Promise<CustomerView | undefined> {
    const data = await this.resolve(GUEST_CUSTOMER, changes);
    try {
      await this.streams.appendFirst(GUEST_CUSTOMER_ID, [{ type: 'CustomerUpdated', data }]);
      return { ...GUEST_CUSTOMER, ...data };
    } catch (error) {
      if (error instanceof ResourceIdTakenError)
        return this.streams.update(GUEST_CUSTOMER_ID, async (current) => this.resolve(current, changes));
      throw error;
    }
  }
}
