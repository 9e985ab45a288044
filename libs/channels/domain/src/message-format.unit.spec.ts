import { formatFor, splitMessage } from './message-format.js';
import { sessionKey } from './session-key.js';

describe('splitMessage', () => {
  it('keeps a short message whole', () => {
    expect(splitMessage('hello', 10)).toEqual(['hello']);
    expect(splitMessage('', 10)).toEqual(['']);
  });

  it('splits at a paragraph, then a line, then a space, and never over the limit', () => {
    expect(splitMessage('aaaa bbbb\n\ncccc', 12)).toEqual(['aaaa bbbb', 'cccc']);
    expect(splitMessage('aaaa\nbbbb cccc', 12)).toEqual(['aaaa', 'bbbb cccc']);
    expect(splitMessage('aaaa bbbb cccc', 10)).toEqual(['aaaa bbbb', 'cccc']);
    expect(splitMessage('x'.repeat(25), 10)).toEqual(['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(5)]);
    const long = Array.from({ length: 500 }, (_, i) => `word${i}`).join(' ');
    const parts = splitMessage(long, 4096 / 8);
    expect(parts.every((p) => p.length <= 512)).toBe(true);
    expect(parts.join(' ')).toBe(long);
  });

  it('never cuts a surrogate pair', () => {
    const parts = splitMessage('a😀😀😀', 4);
    expect(parts.join('')).toBe('a😀😀😀');
    expect(parts.every((p) => !/[\ud800-\udbff]$/.test(p))).toBe(true);
  });
});

describe('formatFor', () => {
  const md = '# Refunds\n**Bold** and *italic* and ~~old~~, `a<b`, see [the policy](https://x.test/p?a=1&b=2) & more';

  it('Slack mrkdwn', () => {
    expect(formatFor('slack', md)).toBe(
      '*Refunds*\n*Bold* and _italic_ and ~old~, `a&lt;b`, see <https://x.test/p?a=1&b=2|the policy> &amp; more',
    );
  });

  it('Telegram HTML', () => {
    expect(formatFor('telegram', md)).toBe(
      '<b>Refunds</b>\n<b>Bold</b> and <i>italic</i> and <s>old</s>, <code>a&lt;b</code>, see <a href="https://x.test/p?a=1&b=2">the policy</a> &amp; more',
    );
  });

  it('WhatsApp', () => {
    expect(formatFor('whatsapp', md)).toBe(
      '*Refunds*\n*Bold* and _italic_ and ~old~, `a<b`, see the policy (https://x.test/p?a=1&b=2) & more',
    );
  });

  it('plain text and markdown', () => {
    expect(formatFor('plain', '**a** [b](https://b.test)')).toBe('a b (https://b.test)');
    expect(formatFor('markdown', md)).toBe(md);
  });

  it('leaves code blocks literal', () => {
    expect(formatFor('telegram', '```ts\nconst a = 1 < 2 && **x**;\n```')).toBe('<pre>const a = 1 &lt; 2 &amp;&amp; **x**;\n</pre>');
  });
});

describe('sessionKey', () => {
  it('is {agent_id}:{channel}:{account}:{peer}, peer "main" by default', () => {
    expect(sessionKey({ agent_id: 'ada', channel: 'telegram', account: 'bot1', peer: '42' })).toBe('ada:telegram:bot1:42');
    expect(sessionKey({ agent_id: 'ada', channel: 'telegram', account: 'bot1' })).toBe('ada:telegram:bot1:main');
  });

  it('escapes ":" so two conversations never share a key', () => {
    expect(sessionKey({ agent_id: 'a', channel: 'c', account: 'x:y', peer: 'z' })).not.toBe(
      sessionKey({ agent_id: 'a', channel: 'c', account: 'x', peer: 'y:z' }),
    );
  });
});
