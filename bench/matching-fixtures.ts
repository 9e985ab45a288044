/**
 * Fixtures for `npm run bench:matching`: a generated agent of any size, and a hand-labelled set for the
 * prefilter's recall — 30 guidelines a support agent really has, each with two customer messages written to
 * need it (plain and paraphrased), hidden among generated distractors from other domains.
 */

export interface FixtureGuideline {
  id: string;
  condition: string;
  action: string;
  criticality?: 'high';
}

export const labelledGuidelines: FixtureGuideline[] = [
  { id: 'refund', condition: 'The customer asks for a refund or their money back', action: 'Explain the 30-day refund policy and offer to start a refund' },
  { id: 'cancel-order', condition: 'The customer wants to cancel an order', action: 'Check whether the order has shipped and cancel it if not' },
  { id: 'track-order', condition: 'The customer asks where their order or package is', action: 'Look up the tracking number and share the delivery estimate' },
  { id: 'damaged', condition: 'The customer received a damaged or broken item', action: 'Apologise and offer a replacement or refund with photos as proof' },
  { id: 'wrong-item', condition: 'The customer received the wrong item', action: 'Arrange a free return and send the correct item' },
  { id: 'password', condition: 'The customer cannot log in or forgot their password', action: 'Send a password reset link to the email on file' },
  { id: 'change-address', condition: 'The customer wants to change the shipping address', action: 'Update the address if the order has not shipped yet' },
  { id: 'invoice', condition: 'The customer needs an invoice or receipt', action: 'Email a PDF invoice for the order' },
  { id: 'double-charge', condition: 'The customer was charged twice for the same order', action: 'Verify the duplicate charge and refund it' },
  { id: 'payment-declined', condition: 'The customer says their card or payment was declined', action: 'Suggest checking the card details or using another payment method' },
  { id: 'discount', condition: 'The customer asks about a discount code or coupon that does not work', action: 'Check the coupon conditions and apply it manually if valid' },
  { id: 'subscription-cancel', condition: 'The customer wants to cancel their subscription or membership', action: 'Offer a pause option, then cancel at the end of the billing period' },
  { id: 'upgrade-plan', condition: 'The customer wants to upgrade to a higher plan', action: 'Explain the premium plan features and prorated pricing' },
  { id: 'delete-account', condition: 'The customer wants to delete their account and data', action: 'Explain the data deletion process and confirm identity first', criticality: 'high' },
  { id: 'human-agent', condition: 'The customer asks to speak with a human or a manager', action: 'Offer to transfer the conversation to a human agent' },
  { id: 'complaint', condition: 'The customer is angry or wants to file a complaint', action: 'Acknowledge the frustration and log a formal complaint' },
  { id: 'opening-hours', condition: 'The customer asks about store opening hours', action: 'Share the opening hours of the nearest store' },
  { id: 'warranty', condition: 'The customer asks about the warranty of a product', action: 'Explain the two-year warranty and how to claim it' },
  { id: 'size-guide', condition: 'The customer asks which size to choose', action: 'Share the size guide and fit recommendations' },
  { id: 'out-of-stock', condition: 'The customer asks when an out-of-stock product will be available again', action: 'Offer a back-in-stock email notification' },
  { id: 'gift-card', condition: 'The customer asks about gift cards or their balance', action: 'Explain how to buy gift cards and check the balance' },
  { id: 'international-shipping', condition: 'The customer asks about shipping to another country', action: 'List the countries we ship to and the customs fees' },
  { id: 'delivery-time', condition: 'The customer asks how long delivery takes', action: 'Give standard and express delivery times' },
  { id: 'return-label', condition: 'The customer needs a return label to send something back', action: 'Generate a prepaid return label' },
  { id: 'privacy', condition: 'The customer asks how their personal data is used', action: 'Summarise the privacy policy and link to it' },
  { id: 'newsletter', condition: 'The customer wants to unsubscribe from marketing emails', action: 'Unsubscribe them and confirm by email' },
  { id: 'loyalty-points', condition: 'The customer asks about loyalty points or rewards', action: 'Show the points balance and how to redeem them' },
  { id: 'price-match', condition: 'The customer found the product cheaper elsewhere', action: 'Explain the price match policy' },
  { id: 'assembly', condition: 'The customer needs help assembling a product', action: 'Send the assembly instructions and video link' },
  { id: 'bulk-order', condition: 'The customer wants to place a large business or bulk order', action: 'Connect them with the business sales team' },
];

/** Two messages per labelled guideline; the second avoids the condition's own words where it can. */
export const labelledMessages: { message: string; relevant: string[] }[] = [
  { message: 'I want a refund for my order', relevant: ['refund'] },
  { message: 'Can I get my money back? I am not happy with it', relevant: ['refund'] },
  { message: 'Please cancel my order 4471', relevant: ['cancel-order'] },
  { message: 'I changed my mind, stop the purchase I made this morning', relevant: ['cancel-order'] },
  { message: 'Where is my package? It should have arrived', relevant: ['track-order'] },
  { message: 'Any update on my shipment? Still nothing at my door', relevant: ['track-order'] },
  { message: 'The vase arrived broken', relevant: ['damaged'] },
  { message: 'The box was crushed and the screen is cracked', relevant: ['damaged'] },
  { message: 'You sent me the wrong item', relevant: ['wrong-item'] },
  { message: 'I ordered blue shoes but got a red jacket', relevant: ['wrong-item'] },
  { message: 'I forgot my password', relevant: ['password'] },
  { message: 'I can not sign in to my account anymore', relevant: ['password'] },
  { message: 'I need to change the shipping address on my order', relevant: ['change-address'] },
  { message: 'I moved last week, can you send it to my new place instead?', relevant: ['change-address'] },
  { message: 'Can you send me an invoice for my purchase?', relevant: ['invoice'] },
  { message: 'My accountant needs a receipt for order 55', relevant: ['invoice'] },
  { message: 'I was charged twice for the same order', relevant: ['double-charge'] },
  { message: 'My bank statement shows two identical payments to you', relevant: ['double-charge'] },
  { message: 'My card was declined at checkout', relevant: ['payment-declined'] },
  { message: 'The payment keeps failing when I try to pay', relevant: ['payment-declined'] },
  { message: 'My discount code does not work', relevant: ['discount'] },
  { message: 'The coupon SUMMER10 is rejected', relevant: ['discount'] },
  { message: 'I want to cancel my subscription', relevant: ['subscription-cancel'] },
  { message: 'Please end my membership, I no longer use it', relevant: ['subscription-cancel'] },
  { message: 'I would like to upgrade to the premium plan', relevant: ['upgrade-plan'] },
  { message: 'What do I get if I move to a higher tier?', relevant: ['upgrade-plan'] },
  { message: 'Delete my account and all my data', relevant: ['delete-account'] },
  { message: 'Erase everything you store about me', relevant: ['delete-account'] },
  { message: 'I want to talk to a human', relevant: ['human-agent'] },
  { message: 'Get me your manager right now', relevant: ['human-agent', 'complaint'] },
  { message: 'This is outrageous, I want to file a complaint', relevant: ['complaint'] },
  { message: 'I am really angry about how I was treated', relevant: ['complaint'] },
  { message: 'What are your opening hours?', relevant: ['opening-hours'] },
  { message: 'Is the shop open on Sunday?', relevant: ['opening-hours'] },
  { message: 'Does this laptop have a warranty?', relevant: ['warranty'] },
  { message: 'It stopped working after a year, is it still covered?', relevant: ['warranty'] },
  { message: 'Which size should I choose?', relevant: ['size-guide'] },
  { message: 'I am usually a medium, will the large fit me?', relevant: ['size-guide'] },
  { message: 'When will this product be back in stock?', relevant: ['out-of-stock'] },
  { message: 'The jacket is sold out, will you restock it?', relevant: ['out-of-stock'] },
  { message: 'How do I check my gift card balance?', relevant: ['gift-card'] },
  { message: 'Can I buy a voucher for my sister?', relevant: ['gift-card'] },
  { message: 'Do you ship to Canada?', relevant: ['international-shipping'] },
  { message: 'Will I pay customs if I order from Germany?', relevant: ['international-shipping'] },
  { message: 'How long does delivery take?', relevant: ['delivery-time'] },
  { message: 'If I order today, when will it arrive?', relevant: ['delivery-time'] },
  { message: 'I need a return label', relevant: ['return-label'] },
  { message: 'How do I send the item back to you?', relevant: ['return-label'] },
  { message: 'How is my personal data used?', relevant: ['privacy'] },
  { message: 'Do you sell my information to advertisers?', relevant: ['privacy'] },
  { message: 'Unsubscribe me from your marketing emails', relevant: ['newsletter'] },
  { message: 'Stop sending me promotions please', relevant: ['newsletter'] },
  { message: 'How many loyalty points do I have?', relevant: ['loyalty-points'] },
  { message: 'Can I use my rewards on this purchase?', relevant: ['loyalty-points'] },
  { message: 'I found this product cheaper on another site', relevant: ['price-match'] },
  { message: 'Amazon sells it for 20 dollars less, can you match that?', relevant: ['price-match'] },
  { message: 'I need help assembling the wardrobe', relevant: ['assembly'] },
  { message: 'The instructions for building the desk are missing', relevant: ['assembly'] },
  { message: 'I want to place a bulk order for my company', relevant: ['bulk-order'] },
  { message: 'We need 500 units for our office, who do I talk to?', relevant: ['bulk-order'] },
];

const domains = ['aviation', 'gardening', 'astronomy', 'tax law', 'veterinary care', 'chess', 'plumbing', 'photography', 'beekeeping', 'marine biology', 'opera', 'mountaineering', 'carpentry', 'genealogy', 'cryptography', 'pottery', 'sailing', 'volcanology', 'fencing', 'origami'];
const asks = ['asks about the history of', 'wants advice on', 'asks for a beginner guide to', 'mentions a problem with', 'asks which tools are needed for', 'wants to book a course in', 'asks about the safety rules of', 'wants a recommendation about'];
const topics = ['equipment', 'prices', 'schedules', 'certification', 'local clubs', 'common mistakes', 'seasonal tips', 'famous experts'];

/** Distractors: plausible guidelines of unrelated domains, deterministic for a given index. */
export function distractor(i: number): FixtureGuideline {
  const domain = domains[i % domains.length]!;
  const ask = asks[Math.floor(i / domains.length) % asks.length]!;
  const topic = topics[Math.floor(i / (domains.length * asks.length)) % topics.length]!;
  return { id: `d${i}`, condition: `The customer ${ask} ${domain} ${topic} (variant ${i})`, action: `Answer about ${domain} ${topic} and point to the ${domain} help page` };
}

/** An agent of `n` guidelines: the labelled ones first (as many as fit), then distractors. */
export function agentOfSize(n: number): FixtureGuideline[] {
  const real = labelledGuidelines.slice(0, Math.min(n, labelledGuidelines.length));
  return [...real, ...Array.from({ length: n - real.length }, (_, i) => distractor(i))];
}
