/**
 * The labelled set of bench:extraction: customer messages with the values a careful reader takes from them for
 * five variable types. A type absent from `expect` is not stated in the message (a value extracted for it is a
 * false positive). Written for the benchmark; mixes plain statements, several values at once, and traps (a
 * number that is not an order, "I'm fine", a date without a year, an email-like string without a domain).
 */
export type VariableType = 'name' | 'order_number' | 'email' | 'date' | 'phone';

export interface Labelled {
  text: string;
  expect: Partial<Record<VariableType, string>>;
}

export const LABELLED: Labelled[] = [
  { text: 'Hi, my name is Alice and my order number is 55555', expect: { name: 'Alice', order_number: '55555' } },
  { text: "I'm Bob Stone, order #10482 never arrived", expect: { name: 'Bob Stone', order_number: '10482' } },
  { text: 'You can email me at carla.m@example.com', expect: { email: 'carla.m@example.com' } },
  { text: 'My email is DAVE@Example.org and my phone is +44 20 7946 0958', expect: { email: 'dave@example.org', phone: '+442079460958' } },
  { text: 'Please deliver on 2026-12-24', expect: { date: '2026-12-24' } },
  { text: 'Can it arrive by March 3, 2027?', expect: { date: '2027-03-03' } },
  { text: 'I ordered on 14 February 2026 and it is still not here, order 88213', expect: { date: '2026-02-14', order_number: '88213' } },
  { text: 'hello', expect: {} },
  { text: "I'm fine, thanks", expect: {} },
  { text: 'I am looking for a refund', expect: {} },
  { text: 'This is Emma, calling about order A-7781', expect: { name: 'Emma', order_number: 'A-7781' } },
  { text: 'call me Frank', expect: { name: 'Frank' } },
  { text: 'my number is 555 123 4567', expect: { phone: '5551234567' } },
  { text: 'Reach me on 06 12 34 56 78 after 5pm', expect: { phone: '0612345678' } },
  { text: 'order no. 99120 was damaged', expect: { order_number: '99120' } },
  { text: 'I bought 3 chairs for 120 euros', expect: {} },
  { text: 'The reference on my order is 44120', expect: { order_number: '44120' } },
  { text: 'my order id: 7731920', expect: { order_number: '7731920' } },
  { text: 'Name is Grace Hopper, email grace@navy.example', expect: { name: 'Grace Hopper', email: 'grace@navy.example' } },
  { text: 'Can you send it to henry@mail', expect: {} },
  { text: 'Delivery on the 5th please', expect: {} },
  { text: 'My birthday is 1990-07-15', expect: { date: '1990-07-15' } },
  { text: 'I was born on 7/15/1990', expect: { date: '1990-07-15' } },
  { text: 'It should come on 25/12/2026', expect: { date: '2026-12-25' } },
  { text: 'Hey, Ivan here. Order #30001', expect: { name: 'Ivan', order_number: '30001' } },
  { text: 'I am Julia and I want to cancel', expect: { name: 'Julia' } },
  { text: 'Where is my package?', expect: {} },
  { text: 'order 12345 and order 67890 both late', expect: { order_number: '12345' } },
  { text: 'my new email address is kim_lee+shop@example.co.uk', expect: { email: 'kim_lee+shop@example.co.uk' } },
  { text: 'Phone: +1 (415) 555-0132', expect: { phone: '+14155550132' } },
  {
    text: "It's Liam. My order is 20231 and I need it by June 1, 2026",
    expect: { name: 'Liam', order_number: '20231', date: '2026-06-01' },
  },
  { text: 'Thanks a lot!', expect: {} },
  { text: 'I need help with my account password', expect: {} },
  { text: 'Contact: maria.garcia@correo.example, tel 612 345 678', expect: { email: 'maria.garcia@correo.example', phone: '612345678' } },
  { text: 'The order number? It is 55001', expect: { order_number: '55001' } },
  { text: 'my name is noah', expect: { name: 'Noah' } },
  { text: "I'm Olivia from Berlin", expect: { name: 'Olivia' } },
  { text: 'Deliver it on Dec 2, 2026 to my office', expect: { date: '2026-12-02' } },
  { text: 'Is 2026-02-30 available for delivery?', expect: {} },
  { text: 'Order #4 was wrong', expect: {} },
  { text: 'Paul speaking, invoice for order 90001 please', expect: { name: 'Paul', order_number: '90001' } },
  { text: 'my email is quinn at example dot com', expect: {} },
  { text: 'send the label to rachel@example.net', expect: { email: 'rachel@example.net' } },
  { text: 'I live at 12 Rue de la Paix, Lyon', expect: {} },
  { text: 'Sam here, can you call me back at +33 6 12 34 56 78?', expect: { name: 'Sam', phone: '+33612345678' } },
  { text: 'I paid 49.90 on 2026-11-20 for order 81818', expect: { date: '2026-11-20', order_number: '81818' } },
  { text: 'Hello, this is Tom. I want my money back.', expect: { name: 'Tom' } },
  { text: 'Could you check order ref 66001?', expect: { order_number: '66001' } },
  { text: 'what is the status of #77120', expect: { order_number: '77120' } },
  { text: 'I am not happy with the service', expect: {} },
  {
    text: 'Uma Thurman, uma@films.example, order 31337',
    expect: { email: 'uma@films.example', order_number: '31337', name: 'Uma Thurman' },
  },
  { text: 'My name is Victor Hugo and I moved on 1 May 2026', expect: { name: 'Victor Hugo', date: '2026-05-01' } },
  { text: 'I want to return the shoes from order 40404, they are too small', expect: { order_number: '40404' } },
  { text: 'I will be away until next Monday', expect: {} },
  { text: 'My phone number changed to 07700 900123', expect: { phone: '07700900123' } },
  { text: 'Wendy here - wendy.w@example.com', expect: { email: 'wendy.w@example.com', name: 'Wendy' } },
  { text: 'Please cancel order number 12001 placed on 2026-10-01', expect: { order_number: '12001', date: '2026-10-01' } },
  { text: 'Hi there, I am Xavier', expect: { name: 'Xavier' } },
  { text: 'Yes, that is correct', expect: {} },
  { text: "my name's Zoe and my email is zoe@example.io", expect: { name: 'Zoe', email: 'zoe@example.io' } },
  { text: 'I called on 3rd of January 2026 about order 70707 but nobody answered', expect: { date: '2026-01-03', order_number: '70707' } },
  { text: 'The parcel weighs 2 kg and measures 30 by 40 cm', expect: {} },
  { text: 'I am Ana, my tracking number is 1Z999AA10123456784', expect: { name: 'Ana' } },
  { text: 'i want to talk to a human', expect: {} },
];
