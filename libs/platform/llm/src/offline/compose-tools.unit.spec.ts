import { composeReplyRequest, type ComposeReplyInput } from '../tasks/compose-reply.js';
import { composeReply } from './compose.js';

const base: ComposeReplyInput = {
  agentName: 'Ava',
  message: 'where is my order 55555?',
  matched: [{ guideline_id: 'orders', action: 'Tell the customer the status of their order' }],
  history: [],
};

describe('offline compose with tool results', () => {
  it("says the tool's message when it returned one", () => {
    const reply = composeReply({
      ...base,
      tool_results: [
        {
          tool_id: 'orders:get_order_status',
          arguments: { order_id: '55555' },
          status: 'succeeded',
          data: { order_id: '55555', status: 'shipped', message: 'Your order 55555 is shipped' },
        },
      ],
    });
    expect(reply.message).toContain('Your order 55555 is shipped.');
    expect(reply.cited_guideline_ids).toEqual(['orders']);
  });

  it("lists the scalar fields of the tool's data otherwise", () => {
    const reply = composeReply({
      ...base,
      tool_results: [
        {
          tool_id: 'orders:get_order_status',
          arguments: { order_id: '55555' },
          status: 'succeeded',
          data: { order_id: '55555', status: 'shipped', items: [1, 2] },
        },
      ],
    });
    expect(reply.message).toContain('order id 55555, status shipped');
  });

  it('owns up to a failed call instead of making a result up', () => {
    const reply = composeReply({
      ...base,
      tool_results: [{ tool_id: 'orders:get_order_status', arguments: { order_id: '55555' }, status: 'failed', error: 'TOOLS.TIMEOUT' }],
    });
    expect(reply.message).toMatch(/couldn't look that up/);
    expect(reply.message).not.toContain('shipped');
  });

  it('shows the tool results to a model in the prompt', () => {
    const request = composeReplyRequest(
      {
        ...base,
        tool_results: [
          { tool_id: 'orders:get_order_status', arguments: { order_id: '55555' }, status: 'succeeded', data: { status: 'shipped' } },
        ],
      },
      { purpose: 'test' },
    );
    const last = request.messages?.at(-1)?.content ?? '';
    expect(last).toContain('[Tool results]');
    expect(last).toContain('orders:get_order_status({"order_id":"55555"}) returned: {"status":"shipped"}');
  });
});
