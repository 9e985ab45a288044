/**
 * Fixtures for `npm run bench:matching` (bench/matching.bench.ts):
 *
 * - `supportGuidelines`: 42 guidelines an online shop's support agent really has — 3 high-criticality, 1
 *   continuous, 7 with tools, one observation (no action) for a disambiguation — and `supportRelationships`
 *   among them;
 * - `generatedGuideline(i)`: a deterministic generator of customer-service guidelines from 20 other businesses
 *   (hotel and restaurant booking, SaaS onboarding, utility billing, freight shipping, telecom, insurance, …),
 *   12 intents each (book, change, cancel, price, problem, status with a lookup tool, documents, deadline,
 *   onboarding, refund, transfer, receipt), about 2% high-criticality, 1% continuous, a few entailments. They
 *   share the support agent's vocabulary (cancel, refund, booking, price, delivery), so they are realistic
 *   distractors for the prefilter, not an easy foreign-language-like background;
 * - `agentOfSize(n)`: an agent of n guidelines — the support guidelines first (as many as fit), then generated
 *   ones — with the relationships and tools it refers to;
 * - `labelledMessages`: 80 customer messages, some with a short history and with the guidelines the agent had
 *   already applied in the session, each labelled by hand with the 1–3 support guidelines that should match.
 *   Plain wordings, paraphrases that avoid the condition's words, follow-ups whose topic is only in the
 *   history, and a few with two intents.
 */
import type { MatchGuidelinesRequestV1 } from '@tenet/contracts';
import { ProviderUnavailableError, type EmbeddingProvider, type EmbeddingResponse } from '@tenet/llm';

export type BenchGuideline = MatchGuidelinesRequestV1['guidelines'][number];
export type BenchTool = NonNullable<MatchGuidelinesRequestV1['tools']>[number];
export type BenchRelationship = NonNullable<MatchGuidelinesRequestV1['relationships']>[number];
export type BenchTurn = MatchGuidelinesRequestV1['history'][number];

const guideline = (id: string, condition: string, action: string | undefined, extra: Partial<BenchGuideline> = {}): BenchGuideline => ({
  id,
  condition,
  ...(action !== undefined ? { action } : {}),
  priority: 0,
  enabled: true,
  tools: [],
  required_context: [],
  ...extra,
});

/** A condition-only guideline (what a journey's condition is to the matcher). */
export const guidelineOf = (id: string, condition: string): BenchGuideline => guideline(id, condition, undefined);

const objectTool = (
  name: string,
  description: string,
  properties: Record<string, { type: string; description: string }>,
  required: string[],
): BenchTool => ({
  name,
  description,
  parameters: { type: 'object', properties, required, additionalProperties: false },
});

const orderId = { type: 'string', description: 'The order number, digits only' };

export const supportTools: BenchTool[] = [
  objectTool('lookup_order', 'Finds an order, its items, shipping status and tracking number', { order_id: orderId }, ['order_id']),
  objectTool(
    'start_refund',
    'Starts a refund for an order',
    { order_id: orderId, reason: { type: 'string', description: 'Why the customer wants a refund' } },
    ['order_id'],
  ),
  objectTool('lookup_refund', 'Shows the state of a refund and when the money is paid out', { order_id: orderId }, ['order_id']),
  objectTool('create_return_label', 'Creates a prepaid return label for an order', { order_id: orderId }, ['order_id']),
  objectTool(
    'update_address',
    'Changes the shipping address of an order that has not shipped',
    { order_id: orderId, address: { type: 'string', description: 'The new full address' } },
    ['order_id', 'address'],
  ),
  objectTool(
    'send_reset_link',
    'Emails a password reset link',
    { email: { type: 'string', description: 'The email address of the account' } },
    [],
  ),
  objectTool('send_invoice', 'Emails the PDF invoice of an order', { order_id: orderId }, ['order_id']),
];

/** The support agent of the labelled set (an online shop with a subscription box). */
export const supportGuidelines: BenchGuideline[] = [
  guideline('greeting', 'The customer greets the agent or opens the conversation', 'Greet them back and ask how you can help'),
  guideline(
    'refund',
    'The customer asks for a refund or their money back',
    'Explain the 30-day refund policy and offer to start a refund',
    { tools: ['start_refund'] },
  ),
  guideline(
    'refund-status',
    'The customer asks when a refund they were promised will be paid',
    'Look up the refund and give the expected payout date (5 to 10 business days after approval)',
    { tools: ['lookup_refund'] },
  ),
  guideline(
    'cancel-order',
    'The customer wants to cancel an order',
    'Check whether the order has shipped; cancel it if not, else offer a return',
    { tools: ['lookup_order'], tags: ['cancellation'] },
  ),
  guideline(
    'track-order',
    'The customer asks where their order or package is',
    'Look up the tracking number and share the delivery estimate',
    { tools: ['lookup_order'] },
  ),
  guideline(
    'late-delivery',
    'The order is later than the promised delivery date',
    'Apologise, check the carrier status and offer free express shipping on the next order',
  ),
  guideline(
    'damaged',
    'The customer received a damaged or broken item',
    'Apologise and offer a replacement or a refund; ask for a photo of the damage',
  ),
  guideline('wrong-item', 'The customer received the wrong item', 'Apologise and send the correct item right away'),
  guideline('missing-item', "An item is missing from the customer's package", 'Check the packing list and ship the missing item'),
  guideline('return-label', 'The customer needs a return label to send something back', 'Generate a prepaid return label', {
    tools: ['create_return_label'],
  }),
  guideline('exchange', 'The customer wants to exchange an item for a different size or colour', 'Explain the free exchange process'),
  guideline(
    'change-address',
    'The customer wants to change the shipping address of an order',
    'Update the address if the order has not shipped yet',
    { tools: ['update_address'] },
  ),
  guideline(
    'delivery-time',
    'The customer asks how long delivery takes',
    'Give the standard (3 to 5 days) and express (1 to 2 days) delivery times',
  ),
  guideline(
    'international-shipping',
    'The customer asks about shipping to another country',
    'List the countries we ship to and explain customs fees',
  ),
  guideline('password', 'The customer cannot log in or forgot their password', 'Send a password reset link to the email on file', {
    tools: ['send_reset_link'],
  }),
  guideline(
    'change-email',
    'The customer wants to change the email address of their account',
    'Verify their identity, then update the email address',
  ),
  guideline(
    'delete-account',
    'The customer wants to delete their account and personal data',
    'Explain the data deletion process and confirm their identity first',
    { criticality: 'high' },
  ),
  guideline('privacy', 'The customer asks how their personal data is used', 'Summarise the privacy policy and link to it'),
  guideline('invoice', 'The customer needs an invoice or receipt', 'Email a PDF invoice for the order', { tools: ['send_invoice'] }),
  guideline('double-charge', 'The customer was charged twice for the same order', 'Verify the duplicate charge and refund it'),
  guideline(
    'payment-declined',
    "The customer's card or payment was declined",
    'Suggest checking the card details or using another payment method',
  ),
  guideline(
    'payment-methods',
    'The customer asks which payment methods are accepted',
    'List cards, PayPal and bank transfer; say there is no cash on delivery',
  ),
  guideline('discount', 'A discount code or coupon does not work', 'Check the coupon conditions and apply it manually if it is valid'),
  guideline('price-match', 'The customer found the product cheaper elsewhere', 'Explain the price match policy'),
  guideline(
    'subscription-cancel',
    'The customer wants to cancel their subscription or membership',
    'Offer a pause first, then cancel at the end of the billing period',
    { tags: ['cancellation'] },
  ),
  guideline(
    'subscription-pause',
    'The customer wants to skip or pause a subscription delivery',
    'Pause the next delivery and confirm the new date',
  ),
  guideline('upgrade-plan', 'The customer wants to upgrade to a higher plan', 'Explain the premium plan features and the prorated price'),
  guideline('loyalty-points', 'The customer asks about loyalty points or rewards', 'Show the points balance and how to redeem them'),
  guideline(
    'gift-card',
    'The customer asks about gift cards or a gift card balance',
    'Explain how to buy gift cards and how to check the balance',
  ),
  guideline(
    'out-of-stock',
    'The customer asks when a sold-out product will be available again',
    'Offer a back-in-stock email notification',
  ),
  guideline('size-guide', 'The customer asks which size to choose', 'Share the size guide and fit recommendations'),
  guideline('warranty', "The customer asks about a product's warranty or a repair", 'Explain the two-year warranty and how to claim it'),
  guideline('assembly', 'The customer needs help assembling a product', 'Send the assembly instructions and the video link'),
  guideline(
    'product-safety',
    'The customer reports that a product overheated, caught fire or injured someone',
    'Tell them to stop using it, apologise, and escalate to the safety team immediately',
    { criticality: 'high' },
  ),
  guideline('human-agent', 'The customer asks to speak with a human or a manager', 'Offer to transfer the conversation to a human agent'),
  guideline('frustrated', 'The customer is frustrated, angry or upset', 'Acknowledge their frustration, stay calm and keep answers short', {
    continuous: true,
  }),
  guideline('complaint', 'The customer wants to file a formal complaint', 'Log a formal complaint and give the reference number'),
  guideline(
    'legal-threat',
    'The customer threatens legal action or a chargeback',
    'Do not argue; escalate to the disputes team and share their contact details',
    { criticality: 'high' },
  ),
  guideline('opening-hours', 'The customer asks about store opening hours or locations', 'Share the opening hours of the nearest store'),
  guideline('bulk-order', 'The customer wants to place a large business or bulk order', 'Connect them with the business sales team'),
  guideline('newsletter', 'The customer wants to stop receiving marketing emails', 'Unsubscribe them and confirm by email'),
  guideline(
    'cancel-unclear',
    'The customer wants to cancel something but does not say whether it is an order or the subscription',
    undefined,
  ),
];

const ref = (id: string) => ({ type: 'guideline' as const, id });

export const supportRelationships: BenchRelationship[] = [
  { id: 'r-legal-over-complaint', kind: 'priority', source: ref('legal-threat'), target: ref('complaint') },
  { id: 'r-safety-over-damaged', kind: 'priority', source: ref('product-safety'), target: ref('damaged') },
  { id: 'r-late-tracks', kind: 'entailment', source: ref('late-delivery'), target: ref('track-order') },
  { id: 'r-wrong-item-label', kind: 'entailment', source: ref('wrong-item'), target: ref('return-label') },
  { id: 'r-which-cancel', kind: 'disambiguation', source: ref('cancel-unclear'), target: { type: 'tag', id: 'cancellation' } },
];

interface Business {
  key: string;
  objects: [string, string, string, string];
}

const businesses: Business[] = [
  { key: 'hotel', objects: ['hotel reservation', 'room upgrade', 'late check-out', 'airport shuttle'] },
  { key: 'restaurant', objects: ['table reservation', 'private dining room', 'tasting menu', 'birthday cake order'] },
  { key: 'airline', objects: ['flight booking', 'seat selection', 'checked baggage', 'boarding pass'] },
  { key: 'car_rental', objects: ['rental car', 'child seat', 'fuel policy', 'one-way drop-off'] },
  { key: 'saas', objects: ['workspace setup', 'team invitation', 'data import', 'single sign-on'] },
  { key: 'utility', objects: ['electricity bill', 'meter reading', 'direct debit', 'energy tariff'] },
  { key: 'telecom', objects: ['mobile plan', 'SIM card', 'roaming package', 'broadband router'] },
  { key: 'insurance', objects: ['home insurance policy', 'insurance claim', 'policy renewal', 'excess payment'] },
  { key: 'bank', objects: ['debit card', 'overdraft', 'standing order', 'savings account'] },
  { key: 'freight', objects: ['pallet shipment', 'customs declaration', 'warehouse pickup', 'freight quote'] },
  { key: 'food_delivery', objects: ['meal delivery', 'allergen information', 'courier tip', 'group order'] },
  { key: 'gym', objects: ['gym membership', 'personal training session', 'locker rental', 'class timetable'] },
  { key: 'clinic', objects: ['doctor appointment', 'prescription renewal', 'lab results', 'vaccination slot'] },
  { key: 'school', objects: ['course enrolment', 'exam registration', 'tuition fee', 'student ID card'] },
  { key: 'events', objects: ['concert ticket', 'VIP package', 'event parking', 'ticket transfer'] },
  { key: 'lettings', objects: ['apartment viewing', 'rental application', 'security deposit', 'lease renewal'] },
  { key: 'it_helpdesk', objects: ['laptop repair', 'VPN access', 'software licence', 'printer setup'] },
  { key: 'payroll', objects: ['payslip', 'expense claim', 'holiday allowance', 'tax form'] },
  { key: 'pet_care', objects: ['grooming appointment', 'pet boarding', 'vet referral', 'pet food subscription'] },
  { key: 'travel', objects: ['package holiday', 'travel insurance', 'visa letter', 'excursion booking'] },
];

/** Condition and action templates; `$` is the object. Intent 5 (status) runs the business's lookup tool. */
const intents: [string, string][] = [
  ['The customer asks how to book or arrange a new $', 'Walk them through booking a new $ step by step'],
  [
    'The customer wants to change the details of their $',
    'Check whether the $ can still be changed and confirm the new details in writing',
  ],
  ['The customer wants to cancel their $', 'Explain the cancellation terms of the $ before cancelling it'],
  ['The customer asks how much the $ costs', 'Quote the current price of the $ and mention any discounts'],
  ['The customer reports a problem with their $', 'Apologise, collect the details of the problem and open a ticket for the $ team'],
  ['The customer asks about the status of their $', 'Look up the $ and share its current status'],
  ['The customer asks which documents are needed for the $', 'List the documents required for the $'],
  ['The customer asks about the deadline for the $', 'Give the deadline for the $ and offer a reminder'],
  ['The customer is new and asks how the $ works', 'Give a short beginner explanation of the $ and link the help article'],
  ['The customer asks to be refunded for the $', 'Explain the refund rules for the $ and escalate if they qualify'],
  ['The customer wants to transfer the $ to someone else', 'Explain whether the $ is transferable and how'],
  ['The customer asks for a receipt or confirmation of the $', 'Resend the confirmation email of the $'],
];

/** A short name for each template of `intents` (for generated intents). */
const intentKinds = [
  'book',
  'change',
  'cancel',
  'price',
  'problem',
  'status',
  'documents',
  'deadline',
  'howto',
  'refund',
  'transfer',
  'receipt',
];

/**
 * `count` intents for the bench's intent rows (ADR 0031): business × template, consecutive ones from different
 * businesses, described by the template's condition and keyed by the object and the template's kind.
 */
export function generatedIntents(count: number): { name: string; description: string; examples: string[]; keywords: string[] }[] {
  if (count > businesses.length * intents.length)
    throw new RangeError(`the generator makes ${businesses.length * intents.length} intents, asked for ${count}`);
  return Array.from({ length: count }, (_, i) => {
    const business = businesses[i % businesses.length]!;
    const kind = Math.floor(i / businesses.length) % intents.length;
    const object = business.objects[0]!;
    const condition = intents[kind]![0].replace('$', object);
    return {
      name: `${business.key}_${intentKinds[kind]!}`,
      description: condition.replace(/^The customer /, ''),
      examples: [condition.replace(/^The customer (asks|wants|reports|is)/, 'I $1')],
      keywords: [object, intentKinds[kind]!],
    };
  });
}

/** How many distinct guidelines the generator makes: 20 businesses × 4 objects × 12 intents. */
export const GENERATED_LIMIT = businesses.length * 4 * intents.length;

const STATUS_INTENT = 5;

/** The i-th generated guideline (0 ≤ i < GENERATED_LIMIT): consecutive ones come from different businesses. */
export function generatedGuideline(i: number): BenchGuideline {
  if (!Number.isInteger(i) || i < 0 || i >= GENERATED_LIMIT)
    throw new RangeError(`the generator makes ${GENERATED_LIMIT} guidelines, asked for #${i}`);
  const business = businesses[i % businesses.length]!;
  const intent = Math.floor(i / businesses.length) % intents.length;
  const object = business.objects[Math.floor(i / (businesses.length * intents.length)) % 4]!;
  const [condition, action] = intents[intent]!;
  return guideline(`gen-${String(i).padStart(3, '0')}-${business.key}`, condition.replace('$', object), action.replaceAll('$', object), {
    ...(intent === STATUS_INTENT ? { tools: [`lookup_${business.key}`] } : {}),
    ...(i % 53 === 11 ? { criticality: 'high' as const } : {}),
    ...(i % 97 === 40 ? { continuous: true } : {}),
  });
}

const generatedTool = (business: Business): BenchTool =>
  objectTool(
    `lookup_${business.key}`,
    `Finds a ${business.objects[0]} or related record by its reference`,
    { reference: { type: 'string', description: 'The booking or account reference' } },
    ['reference'],
  );

/** Relationships among generated guidelines: every 150th entails the same business's next intent. */
const generatedRelationships = (count: number): BenchRelationship[] =>
  Array.from({ length: count }, (_, i) => i)
    .filter((i) => i % 150 === 30 && i + businesses.length < count)
    .map((i) => ({
      id: `r-gen-${i}`,
      kind: 'entailment',
      source: ref(generatedGuideline(i).id),
      target: ref(generatedGuideline(i + businesses.length).id),
    }));

export interface BenchAgent {
  guidelines: BenchGuideline[];
  tools: BenchTool[];
  relationships: BenchRelationship[];
}

/** An agent of `n` guidelines: the support guidelines first (as many as fit), then generated ones. */
export function agentOfSize(n: number): BenchAgent {
  const support = supportGuidelines.slice(0, Math.min(n, supportGuidelines.length));
  const generatedCount = n - support.length;
  if (generatedCount > GENERATED_LIMIT)
    throw new RangeError(`agentOfSize supports at most ${supportGuidelines.length + GENERATED_LIMIT} guidelines`);
  const guidelines = [...support, ...Array.from({ length: generatedCount }, (_, i) => generatedGuideline(i))];
  const ids = new Set(guidelines.map((g) => g.id));
  const tags = new Set(guidelines.flatMap((g) => g.tags ?? []));
  const present = (e: BenchRelationship['source']): boolean => (e.type === 'guideline' ? ids.has(e.id) : tags.has(e.id));
  const relationships = [...supportRelationships, ...generatedRelationships(generatedCount)].filter(
    (r) => present(r.source) && present(r.target),
  );
  const toolNames = new Set(guidelines.flatMap((g) => g.tools));
  const tools = [...supportTools, ...businesses.map(generatedTool)].filter((t) => toolNames.has(t.name));
  return { guidelines, tools, relationships };
}

export interface LabelledMessage {
  message: string;
  /** The turns before it, oldest first (the engine's prefilter query uses the last two). */
  history: BenchTurn[];
  /** Support guidelines that should match this message (by hand). */
  relevant: string[];
  /** Guidelines the agent's earlier replies in this session applied. */
  applied?: string[];
}

const c = (content: string): BenchTurn => ({ role: 'customer', content });
const a = (content: string): BenchTurn => ({ role: 'agent', content });
const say = (message: string, relevant: string[], history: BenchTurn[] = [], applied?: string[]): LabelledMessage => ({
  message,
  history,
  relevant,
  ...(applied ? { applied } : {}),
});

export const labelledMessages: LabelledMessage[] = [
  say('Hi there!', ['greeting']),
  say('I want a refund for my order', ['refund']),
  say('Can I get my money back? The blender is useless', ['refund']),
  say('I sent the shoes back two weeks ago and still have not seen the money', ['refund-status']),
  say(
    'So when do I get paid back?',
    ['refund-status'],
    [c('I returned the jacket last Monday'), a('Thanks, we received it on Thursday and approved the refund.')],
    ['refund'],
  ),
  say('Please cancel order 4471', ['cancel-order']),
  say('I changed my mind, stop the purchase I made this morning', ['cancel-order']),
  say('Where is my package?', ['track-order']),
  say('Any news? Nothing at my door yet', ['track-order'], [c('I ordered a lamp on the 3rd'), a('Thanks! How can I help with it?')]),
  say('It was supposed to arrive on Friday and it is now Wednesday', ['late-delivery', 'track-order']),
  say('Your website promised two days, it has been a week. Ridiculous.', ['late-delivery', 'frustrated']),
  say('The vase arrived broken', ['damaged']),
  say('The box was crushed and the screen has a crack right across it', ['damaged']),
  say('You sent me the wrong item', ['wrong-item']),
  say('I ordered blue sneakers and got a red jacket', ['wrong-item']),
  say('There should be two mugs in the parcel but there was only one', ['missing-item']),
  say('Half of what I paid for is not in the box', ['missing-item']),
  say('How do I send this back to you?', ['return-label']),
  say('Can you email me a prepaid label for the return?', ['return-label']),
  say('These jeans are too small, can I swap them for a bigger size?', ['exchange']),
  say('Do you do exchanges for a different colour?', ['exchange']),
  say('I need to change the delivery address on my order', ['change-address']),
  say(
    'I moved last week, can you send it to my new flat instead?',
    ['change-address'],
    [c('I placed order 8812 yesterday'), a('Got it, what can I do for you?')],
  ),
  say('How long does shipping take?', ['delivery-time']),
  say('If I order today, when will it get here?', ['delivery-time']),
  say('Do you ship to Canada?', ['international-shipping']),
  say('Will I have to pay customs if I order from Switzerland?', ['international-shipping']),
  say('I forgot my password', ['password']),
  say('I cannot sign in to my account anymore', ['password']),
  say(
    'It never came, can you send it again?',
    ['password'],
    [c('I forgot my password'), a('I have sent a reset link to the email on file.')],
    ['password'],
  ),
  say('I need to update the email on my account, I do not use the old one', ['change-email']),
  say('Delete my account and all my data', ['delete-account']),
  say('Erase everything you store about me', ['delete-account']),
  say('How is my personal data used?', ['privacy']),
  say('Do you sell my information to advertisers?', ['privacy']),
  say('Can you send me an invoice for my last purchase?', ['invoice']),
  say('My accountant needs a receipt for order 55', ['invoice']),
  say('I was charged twice for the same order', ['double-charge']),
  say('My bank statement shows two identical payments to you', ['double-charge']),
  say('My card was declined at checkout', ['payment-declined']),
  say('The payment keeps failing when I try to pay', ['payment-declined']),
  say('Can I pay with PayPal?', ['payment-methods']),
  say('Do you take cash on delivery?', ['payment-methods']),
  say('My discount code does not work', ['discount']),
  say('SUMMER10 gets rejected at checkout', ['discount']),
  say('I found this cheaper on another site', ['price-match']),
  say('Amazon sells it for 20 dollars less, can you match that?', ['price-match']),
  say('I want to cancel my subscription', ['subscription-cancel']),
  say('Please end my membership, I no longer use it', ['subscription-cancel']),
  say("Can I skip next month's box? I am travelling", ['subscription-pause']),
  say('I would like to upgrade to the premium plan', ['upgrade-plan']),
  say('What do I get if I move to a higher tier?', ['upgrade-plan']),
  say('How many loyalty points do I have?', ['loyalty-points']),
  say('Can I use my rewards on this purchase?', ['loyalty-points']),
  say('How do I check my gift card balance?', ['gift-card']),
  say("Can I buy a voucher for my sister's birthday?", ['gift-card']),
  say('When will the green hoodie be back in stock?', ['out-of-stock']),
  say('The jacket is sold out, will you restock it?', ['out-of-stock']),
  say('Which size should I take?', ['size-guide']),
  say('I am usually a medium, will the large fit me?', ['size-guide']),
  say('Does this laptop come with a warranty?', ['warranty']),
  say('It stopped working after a year, is it still covered?', ['warranty']),
  say('I need help putting the wardrobe together', ['assembly']),
  say('The instructions for building the desk are missing', ['assembly']),
  say('The charger got so hot it melted and burned my desk', ['product-safety']),
  say('My son cut his finger on a sharp edge of the toy', ['product-safety']),
  say('I want to talk to a human', ['human-agent']),
  say('Get me your manager right now, this is a joke', ['human-agent', 'frustrated']),
  say('This is outrageous, I want to file a formal complaint', ['complaint', 'frustrated']),
  say('I am fed up with your service', ['frustrated']),
  say('If this is not fixed today I am calling my lawyer', ['legal-threat', 'frustrated']),
  say(
    'Then I will just ask my bank to reverse the payment',
    ['legal-threat'],
    [c('My refund is three weeks late'), a('I am sorry, it is still being processed.')],
    ['refund-status'],
  ),
  say('What time does the Leeds store open on Sunday?', ['opening-hours']),
  say('We need 500 units for our office, who do I talk to?', ['bulk-order']),
  say('Stop sending me promotional emails', ['newsletter']),
  say('I want to cancel', ['cancel-unclear', 'cancel-order', 'subscription-cancel']),
  say(
    'Yes please, go ahead',
    ['refund'],
    [c('I want my money back for the kettle'), a('I can start a refund for order 1203, shall I?')],
    ['refund'],
  ),
  say(
    'And if it is still not there tomorrow?',
    ['track-order'],
    [c('My parcel has not come'), a('It is with the carrier and expected tomorrow.')],
    ['track-order'],
  ),
  say(
    'Also, the second one is scratched, and I want my money back for it',
    ['damaged', 'refund'],
    [c('One of the two frames arrived fine'), a('Glad to hear it. Anything else?')],
  ),
  say(
    'Perfect. And can I get a receipt for that?',
    ['invoice'],
    [c('Can I pay by bank transfer?'), a('Yes, we accept cards, PayPal and bank transfer.')],
    ['payment-methods'],
  ),
];

export type BenchTerm = NonNullable<MatchGuidelinesRequestV1['terms']>[number];

/**
 * The support agent's glossary: the shop's own names for things, and the other words customers use for them.
 * Written as a shop would write it, not from the misses of the labelled set (SUMMER10 is nobody's synonym).
 */
export const supportGlossary: BenchTerm[] = [
  {
    name: 'gift card',
    description: 'A prepaid gift card; its balance can be checked online',
    synonyms: ['voucher', 'gift voucher', 'gift certificate'],
  },
  { name: 'invoice', description: 'The PDF invoice or receipt of an order', synonyms: ['receipt', 'bill'] },
  {
    name: 'discount code',
    description: 'A coupon code that lowers the price at checkout',
    synonyms: ['coupon', 'promo code', 'voucher code'],
  },
  {
    name: 'chargeback',
    description: 'The customer asks their bank to reverse a card payment: a legal dispute',
    synonyms: ['reverse the payment', 'dispute the charge'],
  },
  {
    name: 'human agent',
    description: 'A human member of the support team, or a manager',
    synonyms: ['real person', 'manager', 'supervisor'],
  },
  { name: 'subscription', description: 'The monthly subscription box membership', synonyms: ['membership', 'subscription box'] },
];

/**
 * `agentOfSize(1000)` with 400 high-criticality guidelines (the 3 support ones and generated ones spread evenly
 * over the generator's order): the modelling the always-keep cap exists for.
 */
export function agentWithManyCritical(n = 1000, critical = 400): BenchAgent {
  const agent = agentOfSize(n);
  const high = agent.guidelines.filter((g) => g.criticality === 'high').length;
  const others = agent.guidelines.filter((g) => g.criticality !== 'high' && g.id.startsWith('gen-'));
  const wanted = Math.max(0, critical - high);
  const chosen = new Set(
    others.filter((_, j) => Math.floor(((j + 1) * wanted) / others.length) > Math.floor((j * wanted) / others.length)).map((g) => g.id),
  );
  return { ...agent, guidelines: agent.guidelines.map((g) => (chosen.has(g.id) ? { ...g, criticality: 'high' as const } : g)) };
}

/** An embedding provider whose every call fails, as an outage looks to the matcher after the adapter's retries. */
export class FailingEmbeddings implements EmbeddingProvider {
  readonly name = 'openai';
  readonly model = 'text-embedding-3-small';
  readonly dimensions = 1536;
  async embed(): Promise<EmbeddingResponse> {
    throw new ProviderUnavailableError('openai', 'openai call failed (HTTP 503): bench outage', true, 503);
  }
}
