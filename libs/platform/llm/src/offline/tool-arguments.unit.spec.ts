import type { ToolSpec } from '../tasks/match-guidelines.js';
import { extractToolArguments } from './tool-arguments.js';

const tool = (properties: Record<string, unknown>): ToolSpec => ({
  name: 't',
  description: 'a tool',
  parameters: { type: 'object', properties },
});

const orderTool = tool({
  order_id: { type: 'string' },
  email: { type: 'string', format: 'email' },
  quantity: { type: 'integer' },
  reason: { type: 'string', enum: ['damaged', 'late', 'other'] },
});

describe('extractToolArguments (offline rules)', () => {
  it.each([
    ['I want my money back for order 12345', { order_id: '12345' }],
    ['my order number is #A-778, write to ada@example.com', { order_id: 'A-778', email: 'ada@example.com' }],
    ['my purchase 9981 arrived late', { order_id: '9981', reason: 'late' }],
    ['quantity: 4 please, the box came damaged', { quantity: 4, reason: 'damaged' }],
    ['it is 55123', { order_id: '55123' }],
    ['hello, can you help me?', {}],
  ])('"%s" → %j', (text, expected) => {
    expect(extractToolArguments(orderTool, [text])).toEqual(expected);
  });

  it('reads a number before the name ("3 tickets") and casts it to the property type', () => {
    expect(
      extractToolArguments(tool({ ticket_count: { type: 'integer' }, amount: { type: 'number' } }), [
        'I need 3 tickets for an amount of $1,250.50',
      ]),
    ).toEqual({ ticket_count: 3, amount: 1250.5 });
    expect(extractToolArguments(tool({ ticket_count: { type: 'integer' } }), ['I need 2.5 tickets'])).toEqual({});
  });

  it('reads phone numbers, URLs, ISO dates and "my name is …"', () => {
    const contact = tool({
      phone: { type: 'string' },
      website: { type: 'string' },
      delivery_date: { type: 'string', format: 'date' },
      customer_name: { type: 'string' },
    });
    expect(
      extractToolArguments(contact, ["I'm Ada Lovelace, call +1 (555) 123-4567 about https://example.com/orders/1 on 2026-03-01."]),
    ).toEqual({
      phone: '+15551234567',
      website: 'https://example.com/orders/1',
      delivery_date: '2026-03-01',
      customer_name: 'Ada Lovelace',
    });
    expect(extractToolArguments(contact, ['on 2026-03-01 call 555 123 4567'])).toEqual({
      phone: '5551234567',
      delivery_date: '2026-03-01',
    });
    // "I am" followed by an uncapitalised word is not a name.
    expect(extractToolArguments(contact, ['I am hungry'])).toEqual({});
    expect(extractToolArguments(contact, ['My name is Ada and I need help'])).toEqual({ customer_name: 'Ada' });
  });

  it('takes a free-text string only when it is labelled ("is", ":"), quoted phrases whole', () => {
    const profile = tool({ username: { type: 'string' }, nickname: { type: 'string' } });
    expect(extractToolArguments(profile, ['my username is alice42 and my nickname is "Captain Ada"'])).toEqual({
      username: 'alice42',
      nickname: 'Captain Ada',
    });
    expect(extractToolArguments(profile, ['username: bob7'])).toEqual({ username: 'bob7' });
    expect(extractToolArguments(profile, ['I forgot my username'])).toEqual({});
  });

  it("gives the unnamed id-like token only to the tool's single id-like property", () => {
    expect(extractToolArguments(tool({ order_id: { type: 'string' }, customer_id: { type: 'string' } }), ['it is 55123'])).toEqual({});
    expect(extractToolArguments(tool({ order_id: { type: 'string' } }), ['either 55123 or 55124'])).toEqual({});
  });

  it('searches the latest customer message first, then earlier ones', () => {
    expect(extractToolArguments(orderTool, ['it came damaged', 'my order is 777', 'my order was 111'])).toEqual({
      order_id: '777',
      reason: 'damaged',
    });
  });

  it('respects a property pattern, and leaves out booleans, objects and arrays', () => {
    const strict = tool({ order_id: { type: 'string', pattern: '^ORD-\\d+$' }, gift: { type: 'boolean' }, items: { type: 'array' } });
    expect(extractToolArguments(strict, ['order 12345, yes it is a gift'])).toEqual({});
    expect(extractToolArguments(strict, ['order ORD-12345'])).toEqual({ order_id: 'ORD-12345' });
  });
});
