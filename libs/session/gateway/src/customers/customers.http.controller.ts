import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, Patch, Post, Query } from '@nestjs/common';
import { notFound, UnprocessableEntity } from '../http/validation.js';
import { httpCall } from '../tags/rule-violation.js';
import { CustomerCreationDto, CustomerUpdateDto, type CustomerPage, type CustomerView } from './customer.dto.js';
import { CustomersRepository, InvalidCursorError, type CustomerSort } from './customers.repository.js';

const MAX_PAGE = 100;

@Controller('customers')
export class CustomersHttpController {
  constructor(private readonly customers: CustomersRepository) {}

  @Post()
  @HttpCode(HttpStatus.CREATED)
  create(@Body() body: CustomerCreationDto): Promise<CustomerView> {
    return httpCall(() => this.customers.create(body, new Date()));
  }

  /** Without `limit`/`cursor` the full list (Parlant's plain array); with either, one page. */
  @Get()
  async list(@Query('limit') limit?: string, @Query('cursor') cursor?: string, @Query('sort') sort?: string): Promise<CustomerView[] | CustomerPage> {
    if (limit === undefined && cursor === undefined) return this.customers.list();
    const size = limit === undefined ? MAX_PAGE : Number(limit);
    const problems = [];
    if (!Number.isInteger(size) || size < 1 || size > MAX_PAGE) problems.push({ loc: ['query', 'limit'], msg: `limit must be an integer 1-${MAX_PAGE}`, type: 'value_error.number' });
    if (sort !== undefined && sort !== 'asc' && sort !== 'desc') problems.push({ loc: ['query', 'sort'], msg: 'sort must be one of: asc, desc', type: 'value_error.enum' });
    if (problems.length > 0) throw new UnprocessableEntity(problems);
    try {
      return await this.customers.page({ limit: size, cursor, sort: (sort ?? 'asc') as CustomerSort });
    } catch (error) {
      if (error instanceof InvalidCursorError) throw new UnprocessableEntity([{ loc: ['query', 'cursor'], msg: error.message, type: 'value_error.cursor' }]);
      throw error;
    }
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
