import { askForMissingContext, missingRequiredContext } from './required-context.js';

describe('required context variables', () => {
  const variables = [
    { name: 'order_number', required: true },
    { name: 'email', required: true },
    { name: 'nickname', required: false },
    { name: 'UserBalance', required: true },
  ];

  it('lists the required variables without a value (absent, null or blank), in order', () => {
    expect(missingRequiredContext(variables, { email: 'a@b.c', UserBalance: 0 }).map((v) => v.name)).toEqual(['order_number']);
    expect(missingRequiredContext(variables, { order_number: '  ', email: null }).map((v) => v.name)).toEqual([
      'order_number',
      'email',
      'UserBalance',
    ]);
    expect(missingRequiredContext(variables, { order_number: '1', email: 'x', UserBalance: false })).toEqual([]);
  });

  it('asks for each in words', () => {
    expect(
      askForMissingContext([
        { name: 'order_number', required: true },
        { name: 'UserBalance', required: true },
      ]),
    ).toEqual([
      { guideline_id: 'required_context:order_number', action: 'Ask the customer for their order number' },
      { guideline_id: 'required_context:UserBalance', action: 'Ask the customer for their user balance' },
    ]);
  });
});
