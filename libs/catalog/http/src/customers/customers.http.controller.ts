import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query, Req } from '@nestjs/common';
import type { Request } from 'express';
import { pageRequestOf, withCursor, notFound, httpCall, WorkspaceDirectory } from '@tenet/edge';
import {
  CustomerCreationDto,
  CustomerUpdateDto,
  type CustomerPage,
  type CustomerView,
  CustomersRepository,
} from '@tenet/catalog-data-access';

@Controller('customers')
export class CustomersHttpController {
  constructor(
    private readonly customers: CustomersRepository,
    private readonly workspaces: WorkspaceDirectory,
  ) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: CustomerCreationDto): Promise<CustomerView> {
    return httpCall(() => this.customers.create(body, new Date()));
  }

  /** Without `limit`/`cursor` the full list (Parlant's plain array); with either, one page. */
  @Get()
  async list(
    @Req() http: Request,
    @Query('limit') limit?: string,
    @Query('cursor') cursor?: string,
    @Query('sort') sort?: string,
  ): Promise<CustomerView[] | CustomerPage> {
    // Only the caller's workspace's customers, before paging: total_count and pages count only those.
    const visible = (customers: CustomerView[]): Promise<CustomerView[]> =>
      this.workspaces.visibleTo(http, 'customers', customers, (customer) => customer.id);
    if (limit === undefined && cursor === undefined) return visible(await this.customers.list());
    const request = pageRequestOf(limit, cursor, sort);
    return withCursor(() => this.customers.page(request, visible));
  }

  @Get(':customerId')
  async read(@Param('customerId') id: string): Promise<CustomerView> {
    return (await this.customers.get(id)) ?? Promise.reject(notFound('customer', id));
  }

  @Patch(':customerId')
  async update(@Param('customerId') id: string, @Body() body: CustomerUpdateDto): Promise<CustomerView> {
    return (await httpCall(() => this.customers.update(id, body))) ?? Promise.reject(notFound('customer', id));
  }

  @Delete(':customerId')
  @HttpCode(HttpStatus.NO_CONTENT)
  async remove(@Param('customerId') id: string): Promise<void> {
    if (!(await httpCall(() => this.customers.delete(id)))) throw notFound('customer', id);
  }
}
