import { defaultJourneyTimeouts, type JourneyDefinition, type JourneyStep } from './journey-definition.js';

/** Test fixture shared by the journey specs (not exported from the lib). */
export const step = (id: string, kind: JourneyStep['kind'], extra: Partial<JourneyStep> = {}): JourneyStep => ({
  id,
  name: id.replace(/_/g, ' '),
  kind,
  ...(kind === 'chat' || kind === 'fork' ? { instruction: `do ${id}` } : {}),
  required_context: [],
  guidelines: [],
  ...extra,
});

/** A return: order number → reason → refund-or-exchange fork → refund (tool) | exchange → confirmation. */
export const returns = (): JourneyDefinition => ({
  id: 'returns',
  title: 'Process a return',
  description: 'Take an order back for a refund or an exchange',
  steps: [
    step('ask_order', 'chat', { required_context: ['order_number'] }),
    step('ask_reason', 'chat'),
    step('decide', 'fork'),
    step('refund', 'tool', { tool: 'issue_refund' }),
    step('exchange', 'chat'),
    step('confirm', 'final'),
  ],
  transitions: [
    { from: 'ask_order', to: 'ask_reason', condition: 'the customer gave their order number', priority: 0 },
    { from: 'ask_reason', to: 'decide', priority: 0 },
    { from: 'decide', to: 'refund', condition: 'the customer wants their money back', priority: 10 },
    { from: 'decide', to: 'exchange', condition: 'the customer wants a different item', priority: 0 },
    { from: 'refund', to: 'confirm', priority: 0 },
    { from: 'exchange', to: 'confirm', priority: 0 },
  ],
  initial_step: 'ask_order',
  timeouts: { ...defaultJourneyTimeouts },
});
