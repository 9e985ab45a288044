import { toMatch, type MatchableGuideline } from './guideline-matching.js';
import { appliedAfterReply, renderTemplate, templateFields } from './composition.js';

const g = (id: string, action?: string): MatchableGuideline => ({ id, condition: id, ...(action ? { action } : {}), priority: 0, enabled: true, tools: [], required_context: [] });

describe('composition helpers', () => {
  it('applied guidelines are the actionable matches the reply cites; observations and unmatched ids never count', () => {
    const matched = [toMatch(g('refund', 'explain refunds'), 0.9, 1, '', {}), toMatch(g('angry'), 0.8, 1, '', {})];
    expect(appliedAfterReply(matched, ['refund', 'angry', 'never-matched'])).toEqual(['refund']);
  });

  it('renders a canned response only when every field has a value', () => {
    expect(templateFields('Hi {{ name }}, order {{order_id}} ships {{name}}')).toEqual(['name', 'order_id']);
    expect(renderTemplate('Hi {{name}}, order {{order_id}} is on its way.', { name: 'Ann', order_id: '42' })).toBe('Hi Ann, order 42 is on its way.');
    expect(renderTemplate('Hi {{name}}', {})).toBeUndefined();
    expect(renderTemplate('No fields here.', {})).toBe('No fields here.');
  });
});
