import { effectiveCompositionMode, renderTemplate, templateFields } from './composition.js';

describe('canned response templates', () => {
  it('given a template, when listing its fields, then each appears once in order of first use', () => {
    expect(templateFields('Hi {{ name }}, order {{order_id}} ships {{name}}')).toEqual(['name', 'order_id']);
  });

  it('given field values, when rendering, then it renders only if every field has a value', () => {
    expect(renderTemplate('Hi {{name}}, order {{order_id}} is on its way.', { name: 'Ann', order_id: '42' })).toBe(
      'Hi Ann, order 42 is on its way.',
    );
    expect(renderTemplate('Hi {{name}}', {})).toBeUndefined();
    expect(renderTemplate('No fields here.', {})).toBe('No fields here.');
  });
});

describe('effective composition mode (Parlant: the most restrictive mode among the matched guidelines)', () => {
  it("given no matched guideline sets a mode, then the agent's mode applies", () => {
    expect(effectiveCompositionMode('fluid', [])).toBe('fluid');
    expect(effectiveCompositionMode('canned_fluid', [undefined, undefined])).toBe('canned_fluid');
  });

  it('given a fluid agent, when a matched guideline asks for strict_canned, then the reply is strict', () => {
    expect(effectiveCompositionMode('fluid', [undefined, 'strict_canned'])).toBe('strict_canned');
  });

  it("given several guideline modes, then the most restrictive canned one wins, and a guideline's fluid asks for nothing", () => {
    expect(effectiveCompositionMode('fluid', ['canned_fluid', 'composited_canned', 'fluid'])).toBe('composited_canned');
    expect(effectiveCompositionMode('composited_canned', ['fluid'])).toBe('composited_canned');
  });

  it("given a canned agent, when a guideline asks for a less restrictive canned mode, then the guideline's mode wins (as in Parlant)", () => {
    expect(effectiveCompositionMode('composited_canned', ['canned_fluid'])).toBe('canned_fluid');
  });

  it('given a strict_canned agent, then the reply is strict whatever the guidelines ask', () => {
    expect(effectiveCompositionMode('strict_canned', ['canned_fluid', 'fluid'])).toBe('strict_canned');
  });
});
