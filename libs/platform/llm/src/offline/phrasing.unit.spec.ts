import { composeReply } from './compose.js';
import { phrasesFor, toCustomer } from './phrasing.js';

const reply = (action: string): string =>
  phrasesFor(action, 'Ada')
    .map((p) => p.text)
    .join(' ');

describe('offline phrasing: "verb them to X" and "verb them that X"', () => {
  it.each([
    ['Remind them to bring a valid passport', 'Please remember to bring a valid passport.'],
    ['Remind the customer not to share their password', 'Please remember not to share your password.'],
    ['Ask them to describe their issue', 'Could you describe your issue?'],
    ['Ask them not to share the code', "Please don't share the code."],
    ['Tell them to be patient', 'Please be patient.'],
    ['Instruct them to restart the app', 'Please restart the app.'],
    ['Advise them to update the app', "I'd advise you to update the app."],
    ['Encourage the user to leave a review', "I'd encourage you to leave a review."],
    ['Urge them to change their password', "I'd urge you to change your password."],
    ['Invite them to join the beta', "You're welcome to join the beta."],
    ['Warn them not to share the code', "Please don't share the code."],
    ['Remind them to check whether they received the email', 'Please remember to check whether you received the email.'],
  ])('given the infinitive action "%s", when phrased, then it is the whole request "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Tell them that orders ship within two days', 'Orders ship within two days.'],
    ['Tell them orders can be cancelled until they ship', 'Orders can be cancelled until they ship.'],
    ['Tell them they can return it within 30 days', 'You can return it within 30 days.'],
    ["Tell them it's free", "It's free."],
    ['Inform them that the store is closed on Sunday', 'The store is closed on Sunday.'],
    ['Let them know that their order has shipped', 'Your order has shipped.'],
    ['Let the customer know you will call back', 'I will call back.'],
    ['Remind them that refunds take five days', 'Just a reminder that refunds take five days.'],
    ['Warn them that the link expires in an hour', 'Please note that the link expires in an hour.'],
  ])('given the clause action "%s", when phrased, then the clause is said: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Tell them their current plan', 'I will tell you your current plan.'],
    ['Tell them the status of their order', 'I will tell you the status of your order.'],
    ['Tell them the price, which is 10 euros', 'I will tell you the price, which is 10 euros.'],
    ['Inform them about the delay', 'I will inform you about the delay.'],
    ['Remind them of the deadline', 'I will remind you of the deadline.'],
    ['Tell them how long it will take', 'I will tell you how long it will take.'],
  ])(
    'given "%s" (a noun phrase or topic, not a clause), when phrased, then it is promised whole, never a fragment: "%s"',
    (action, sentence) => {
      expect(reply(action)).toBe(sentence);
    },
  );
});

describe('offline phrasing: greetings keep what follows them', () => {
  it.each([
    ['Greet the customer', "Hello, I'm Ada!"],
    ['Greet them warmly', "Hello, I'm Ada!"],
    ['Welcome them and offer the getting started guide', "Hello, I'm Ada! I will offer the getting started guide."],
    ['Greet them warmly, then ask how you can help', "Hello, I'm Ada! How can I help?"],
    ['Welcome them to Tenet', "Hello, I'm Ada! Welcome to Tenet!"],
    ['Say hello and ask for their booking reference', "Hello, I'm Ada! Could you share your booking reference?"],
    ['Greet them. Offer the guide.', "Hello, I'm Ada! I will offer the guide."],
    // The greeting already says who the agent is: an introduction by the same name is not said twice.
    ['Greet them warmly, introduce yourself as Ada and ask how you can help', "Hello, I'm Ada! How can I help?"],
    ['Introduce yourself and ask for their order number', "I'm Ada. Could you share your order number?"],
    ['Greet them and introduce yourself as their travel assistant', "Hello, I'm Ada! I'm your travel assistant."],
  ])('given "%s", when phrased, then the reply is "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it('given two actions that both greet, when composed, then the greeting is said once and the rest of each is kept', () => {
    const { message } = composeReply({
      agentName: 'Ada',
      message: 'hi',
      history: [],
      matched: [
        { guideline_id: 'greet', action: 'Greet them' },
        { guideline_id: 'welcome', action: 'Welcome them and offer the getting started guide' },
      ],
    });
    expect(message).toBe("Hello, I'm Ada! I will offer the getting started guide.");
  });
});

describe('offline phrasing: actions of several clauses', () => {
  it.each([
    ['Check fare rules and offer new dates for the booking', 'I will check fare rules and offer new dates for the booking.'],
    ['Check the order, then tell them it shipped', 'I will check the order, then tell you it shipped.'],
  ])('given "%s" (things the agent does), when phrased, then they stay one promise: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Resend the verification email and ask them to check spam', 'I will resend the verification email. Could you check spam?'],
    ['Ask for the order number and check the status', 'Could you share the order number? I will check the status.'],
    ['Explain the policy, then ask for the order number', 'I will explain the policy. Could you share the order number?'],
    [
      'Remind them to bring a valid passport and offer travel insurance',
      'Please remember to bring a valid passport. I will offer travel insurance.',
    ],
    ['Ask them to wait, and apologise for the delay', 'Could you wait? I will apologise for the delay.'],
    ["Say 'Welcome aboard!' and offer the guide", 'Welcome aboard! I will offer the guide.'],
    [
      'Explain the 30-day refund policy and offer to start a refund',
      "I will explain the 30-day refund policy. I'd be happy to start a refund.",
    ],
  ])('given "%s" (something said and something done), when phrased, then each is its own sentence: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Ask them to restart the router and check the lights', 'Could you restart the router and check the lights?'],
    ['Ask for the departure city, destination and travel dates', 'Could you share the departure city, destination and travel dates?'],
    ['Ask for their name and email', 'Could you share your name and email?'],
    ['Ask for the end and start dates', 'Could you share the end and start dates?'],
  ])('given "%s" (one request with several parts), when phrased, then it is not cut: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it('given a two-clause action, when phrased, then each sentence names the part of the action it says', () => {
    expect(phrasesFor('Welcome them and offer the getting started guide', 'Ada')).toEqual([
      { text: "Hello, I'm Ada!", source: 'Welcome them' },
      { text: 'I will offer the getting started guide.', source: 'offer the getting started guide' },
    ]);
  });
});

describe('offline phrasing: punctuation, quotes and questions', () => {
  it.each([
    ['Ask for the order number.', 'Could you share the order number?'],
    ['Ask whether they want a receipt?', 'Could you tell me whether you want a receipt?'],
    ['Ask which plan they are on', 'Could you tell me which plan you are on?'],
    ['Ask about their trip', 'Could you tell me about your trip?'],
    ['Apologise for the damaged item.', 'I will apologise for the damaged item.'],
    ['Offer to start a refund!', "I'd be happy to start a refund."],
  ])('given "%s", when phrased, then it is one well-punctuated sentence: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ["Say 'We are open 9 to 5, Monday to Friday.'", 'We are open 9 to 5, Monday to Friday.'],
    ["Say 'We don't ship abroad, sorry. Anything else?'", "We don't ship abroad, sorry. Anything else?"],
    ['Tell them: "We ship worldwide"', 'We ship worldwide.'],
    ['Ask "Is there anything else I can help with"', 'Is there anything else I can help with?'],
    ["'Thanks for flying with us!'", 'Thanks for flying with us!'],
  ])('given the quoted line "%s", when phrased, then it is said verbatim and never cut: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it('given an action already written as what to say, when phrased, then it is said as written (never "I will our …"), without cutting at "a.m."', () => {
    expect(reply('Our store opens at 9 a.m. Monday to Friday')).toBe('Our store opens at 9 a.m. Monday to Friday.');
  });
});

describe('offline phrasing: who is who', () => {
  it.each([
    ['introduce yourself so you can help', 'introduce myself so I can help'],
    ['thank them for choosing you', 'thank you for choosing me'],
    ['make sure you have their order number', 'make sure I have your order number'],
    ["say you're happy to help with the customer's booking", 'say I am happy to help with your booking'],
    ['check that the order is theirs', 'check that the order is yours'],
  ])('given "%s", when turned to the customer, then it reads "%s"', (text, turned) => {
    expect(toCustomer(text)).toBe(turned);
  });
});

describe('offline phrasing: statements, offers, thanks and direct questions', () => {
  it.each([
    ['Mention that standard delivery takes 3-5 business days', 'Standard delivery takes 3-5 business days.'],
    ['Explain that Acme refunds any order within 30 days of delivery', 'Acme refunds any order within 30 days of delivery.'],
    ['Note that the store opens at 9', 'The store opens at 9.'],
    ['Point out that they can change seats online', 'You can change seats online.'],
  ])('given "%s" (a clause the agent passes on), when phrased, then it is said plainly: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Explain that policy to them', 'I will explain that policy to you.'],
    ['Explain that fees apply', 'I will explain that fees apply.'],
  ])('given "%s" ("that" a demonstrative, or no verb recognised), when phrased, then it stays a promise: "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });

  it.each([
    ['Offer to send a reset link to their email', "I'd be happy to send a reset link to your email."],
    ['Thank them back', 'Thank you!'],
    ['Thank the customer for their patience', 'Thank you for your patience.'],
    ['Ask how you can help', 'How can I help?'],
    ['Ask them what they would like to order', 'What would you like to order?'],
    ['Ask if there is anything else you can help with', 'Is there anything else I can help with?'],
    ['Ask whether there are other questions', 'Are there other questions?'],
    ['Ask them how they heard about us', 'Could you tell me how you heard about us?'],
  ])('given "%s", when phrased, then the customer hears "%s"', (action, sentence) => {
    expect(reply(action)).toBe(sentence);
  });
});
