import { renderTemplate, templateFields } from './composition.js';

describe('canned response templates', () => {
  it('given a template, when listing its fields, then each appears once in order of first use', () => {
    expect(templateFields('Hi {{ name }}, order {{order_id}} ships {{name}}')).toEqual(['name', 'order_id']);
  });

  it('given field values, when rendering, then it renders only if every field has a value', () => {
    expect(renderTemplate('Hi {{name}}, order {{order_id}} is on its way.', { name: 'Ann', order_id: '42' })).toBe('Hi Ann, order 42 is on its way.');
    expect(renderTemplate('Hi {{name}}', {})).toBeUndefined();
    expect(renderTemplate('No fields here.', {})).toBe('No fields here.');
  });
});
