import { stem, STOP_WORDS, words } from './words.js';

describe('words', () => {
  it('given text with accents, case, punctuation and contractions, when split, then it gives lowercased letters and digits without marks', () => {
    expect(words("Café déjà-vu: DON'T ship order #4471!")).toEqual(['cafe', 'deja', 'vu', 'don', 't', 'ship', 'order', '4471']);
    expect(words('  ')).toEqual([]);
    // Printable ASCII takes the fast path: the same words as the Unicode path gives them.
    expect(words("DON'T ship\torder #4471!\n")).toEqual(['don', 't', 'ship', 'order', '4471']);
  });
});

describe('STOP_WORDS', () => {
  it('holds function words, condition boilerplate, bare answers and contraction remnants — not topic words', () => {
    for (const word of ['the', 'customer', 'asks', 'yes', 'ok', 'please', 'don', 've', 'not']) expect(STOP_WORDS.has(word)).toBe(true);
    for (const word of ['refund', 'agent', 'human', 'thanks', 'order', 'cancel']) expect(STOP_WORDS.has(word)).toBe(false);
  });
});

describe('stem', () => {
  it('given inflections, when stemming, then they meet their base word', () => {
    expect(['refunds', 'refunded', 'refunding'].map(stem)).toEqual(['refund', 'refund', 'refund']);
    expect(['deliveries', 'boxes', 'address', 'status'].map(stem)).toEqual(['delivery', 'box', 'address', 'status']);
  });
});
