import type { IntentToMatchV1 } from '@tenet/contracts';

/**
 * The labelled set of `npm run bench:intents` (ADR 0031): an online shop's seven intents, and 106 customer
 * messages — 84 that mean one intent (12 each, worded as customers write, many without any of the intent's
 * keywords), 10 ambiguous ones (the agent should ask which intent is meant) and 12 out of scope (UNKNOWN: the
 * agent's fallback). Written for this bench, not tuned on the offline classifier's rules.
 */
export const benchIntents: IntentToMatchV1[] = [
  {
    name: 'track_order',
    description: 'Track where an order or delivery is',
    keywords: ['track', 'tracking', 'where is my order', 'not arrived', 'delivery status'],
    examples: ['Where is my parcel?', 'Has my order shipped yet?', 'When will my package arrive?'],
    parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4,10}$' } } },
  },
  {
    name: 'cancel_order',
    description: 'Cancel an order before it ships',
    keywords: ['cancel', 'call off', 'stop the order'],
    examples: ['Please cancel my order', 'I no longer want what I ordered'],
    parameters: { type: 'object', properties: { order_id: { type: 'string', pattern: '^[0-9]{4,10}$' } } },
  },
  {
    name: 'refund_or_return',
    description: 'Return an item or get money back',
    keywords: ['refund', 'return', 'money back', 'exchange'],
    examples: ['I want my money back', 'How do I send this back?', 'Can I swap it for another size?'],
  },
  {
    name: 'account_access',
    description: 'Get back into the account',
    keywords: ['password', 'log in', 'login', 'sign in', 'locked out'],
    examples: ['I forgot my password', "I can't get into my account"],
  },
  {
    name: 'change_address',
    description: 'Change the delivery address',
    keywords: ['change address', 'new address', 'wrong address', 'moved house'],
    examples: ['Please deliver it to my office instead', 'I need to update where it gets shipped'],
  },
  {
    name: 'talk_to_human',
    description: 'Talk to a person instead of the bot',
    keywords: ['human', 'representative', 'real person', 'operator', 'speak to someone'],
    examples: ['Can I talk to a real agent?', 'Put me through to your staff'],
  },
  {
    name: 'payment_problem',
    description: 'A payment failed or was charged twice',
    keywords: ['charged twice', 'payment', 'card declined', 'double charge', 'billing'],
    examples: ['My card was declined at checkout', 'You took the money two times'],
  },
];

/** `AMBIGUOUS`: the agent should ask which intent is meant; `OUT_OF_SCOPE`: none of the intents (UNKNOWN). */
export type IntentLabel = string;
export const AMBIGUOUS = 'AMBIGUOUS';
export const OUT_OF_SCOPE = 'OUT_OF_SCOPE';

export interface LabelledIntentMessage {
  message: string;
  label: IntentLabel;
  /** For ambiguous messages: the intents it could mean (a scripted model offers them as close alternatives). */
  could_mean?: string[];
}

const of = (label: string, messages: string[]): LabelledIntentMessage[] => messages.map((message) => ({ message, label }));

export const labelledIntentMessages: LabelledIntentMessage[] = [
  ...of('track_order', [
    'Where is my order 55555?',
    'Can you track my package please',
    "My parcel still hasn't arrived",
    'When will order 12345 be delivered?',
    'Has my stuff been shipped yet?',
    'I ordered last week and nothing came',
    'Any update on the delivery of 88812?',
    'What is the tracking number for my purchase?',
    'how long until my package gets here',
    'The courier never showed up with my box',
    "It's been 10 days, where's my order?",
    'Is order 40404 on its way?',
  ]),
  ...of('cancel_order', [
    'Please cancel order 55555',
    'I want to cancel my purchase',
    'Can I call off the order I just placed?',
    "I changed my mind, don't send it",
    'Stop the order please, I ordered by mistake',
    'cancel it',
    'I no longer need the shoes I ordered, cancel them',
    'How do I cancel an order?',
    'Please do not ship order 77777',
    'I ordered the wrong thing, can you cancel it before it ships?',
    'Cancel my subscription box order',
    'Is it too late to cancel?',
  ]),
  ...of('refund_or_return', [
    'I want a refund',
    'How do I return these jeans?',
    'Can I get my money back for the broken lamp?',
    'The shirt is too small, can I exchange it?',
    'I sent the item back, when do I get refunded?',
    'What is your return policy?',
    'This arrived damaged and I want to send it back',
    'Can I swap this for a bigger size?',
    "I'd like a refund for order 12345",
    'The product is faulty, I want to return it',
    'How many days do I have to return something?',
    'Reimburse me for the missing item please',
  ]),
  ...of('account_access', [
    "I can't log in",
    'I forgot my password',
    'My account is locked',
    'Password reset link does not work',
    "I'm locked out of my account",
    'The sign in page keeps failing',
    "I can't get into my account after changing phones",
    'How do I reset my password?',
    'It says my login is invalid',
    'I never got the verification code to sign in',
    'my account got blocked',
    'Help, I cannot access my profile',
  ]),
  ...of('change_address', [
    'I need to change my delivery address',
    'I moved house, please update my address',
    'Can you ship it to my work address instead?',
    'I entered the wrong address on my order',
    'Please deliver to 12 High Street instead',
    'Update the shipping address for order 55555',
    'Can I change where my package is delivered?',
    'Send it to my new address please',
    'The address on my order is outdated',
    'Deliver it to my neighbour instead',
    'I typed the wrong postcode',
    'Change the destination of my parcel',
  ]),
  ...of('talk_to_human', [
    'I want to talk to a human',
    'Can I speak to a real person?',
    'Get me a representative',
    'Transfer me to an operator',
    'Is there a person I can talk to?',
    'I do not want a bot, give me a human',
    'Let me speak to someone from your team',
    'Connect me with customer service staff',
    'Can a real agent call me back?',
    'human please',
    'I need to speak to a manager',
    'Put me through to a live agent',
  ]),
  ...of('payment_problem', [
    'I was charged twice',
    'My card was declined',
    'There is a double charge on my statement',
    'The payment failed but money left my account',
    'Why was I billed again?',
    'My payment did not go through',
    'You charged me the wrong amount',
    'I see two charges for one order',
    'Checkout keeps rejecting my credit card',
    'There is a billing error on my invoice',
    'The payment page gives an error',
    'I paid but the order says unpaid',
  ]),
  { message: 'I want to cancel my order and get my money back', label: AMBIGUOUS, could_mean: ['cancel_order', 'refund_or_return'] },
  { message: 'There is a problem with my order', label: AMBIGUOUS, could_mean: ['track_order', 'refund_or_return', 'cancel_order'] },
  { message: 'Something is wrong with my order', label: AMBIGUOUS, could_mean: ['track_order', 'refund_or_return'] },
  { message: 'Can you help me with my order?', label: AMBIGUOUS, could_mean: ['track_order', 'cancel_order'] },
  { message: 'I need to change my order', label: AMBIGUOUS, could_mean: ['change_address', 'cancel_order'] },
  { message: 'my order', label: AMBIGUOUS, could_mean: ['track_order', 'cancel_order'] },
  { message: 'I was charged but the order never came', label: AMBIGUOUS, could_mean: ['payment_problem', 'track_order'] },
  { message: 'Return or cancel, whichever is quicker', label: AMBIGUOUS, could_mean: ['refund_or_return', 'cancel_order'] },
  {
    message: 'The delivery went to the wrong place and I want my money back',
    label: AMBIGUOUS,
    could_mean: ['change_address', 'refund_or_return'],
  },
  { message: 'I have an issue with an order I placed', label: AMBIGUOUS, could_mean: ['track_order', 'refund_or_return'] },
  ...of(OUT_OF_SCOPE, [
    "What's the weather tomorrow?",
    'Tell me a joke',
    'Who won the football game last night?',
    'Can you write me a poem about cats?',
    'What is the capital of France?',
    'How do I bake sourdough bread?',
    'Recommend a good movie',
    'What time is it in Tokyo?',
    'Are you a robot?',
    'I like turtles',
    'Translate hello into Spanish',
    'What is 2 plus 2?',
  ]),
];
