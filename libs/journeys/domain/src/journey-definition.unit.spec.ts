import { journeyMermaid, terminalSteps, validateAgentJourneys, validateJourney, type JourneyDefinition } from './index.js';
import { returns, step } from './returns-journey.fixture.js';

const fields = (journey: JourneyDefinition, refs = {}): string[] => validateJourney(journey, refs).map((v) => v.field);
const rules = (journey: JourneyDefinition, refs = {}): string[] => validateJourney(journey, refs).map((v) => `${v.field} ${v.rule}`);

describe('validateJourney (reference, graph and step-kind rules)', () => {
  it('accepts a well-formed journey, and a description-only one', () => {
    expect(
      validateJourney(returns(), { tools: new Set(['issue_refund']), contextVariables: new Set(['order_number']), guidelines: new Set() }),
    ).toEqual([]);
    expect(validateJourney({ ...returns(), steps: [], transitions: [], initial_step: undefined })).toEqual([]);
    expect(terminalSteps(returns()).map((s) => s.id)).toEqual(['confirm']);
  });

  it('on_failure: end, handoff, or a step that exists and is not a tool step', () => {
    expect(fields({ ...returns(), on_failure: { action: 'end' } })).toEqual([]);
    expect(fields({ ...returns(), on_failure: { action: 'handoff' } })).toEqual([]);
    expect(fields({ ...returns(), on_failure: { action: 'step', step: 'exchange' } })).toEqual([]);
    expect(rules({ ...returns(), on_failure: { action: 'retry' } as never })).toEqual([
      'on_failure.action must be one of end, handoff, step',
    ]);
    expect(rules({ ...returns(), on_failure: { action: 'step', step: 'nowhere' } })).toEqual([
      'on_failure.step must reference an existing step: nowhere does not exist',
    ]);
    expect(rules({ ...returns(), on_failure: { action: 'step', step: 'refund' } })).toEqual([
      'on_failure.step must not be a tool step: refund could fail again',
    ]);
    expect(fields({ ...returns(), on_failure: { action: 'end', step: 'exchange' } as never })).toEqual(['on_failure.step']);
    // A step reached only when a tool step fails is reachable through on_failure (and only then).
    const manual = {
      ...returns(),
      steps: [...returns().steps, step('by_hand', 'chat')],
      transitions: [...returns().transitions, { from: 'by_hand', to: 'confirm', priority: 0 }],
    };
    expect(fields({ ...manual, on_failure: { action: 'step', step: 'by_hand' } })).toEqual([]);
    expect(rules(manual)).toEqual(['steps[6] must be reachable from the initial step ask_order: by_hand is not']);
  });

  it('rule 1: id must be non-empty', () => {
    expect(rules({ ...returns(), id: '' })).toContain('id must be 1-64 characters');
  });

  it.each([
    ['', 'title'],
    ['x'.repeat(101), 'title'],
  ])('rule 2: title 1-100 characters (%#)', (title) => {
    expect(rules({ ...returns(), title })).toContain('title must be 1-100 characters');
  });

  it.each(['', 'x'.repeat(1001)])('rule 3: description 1-1000 characters (%#)', (description) => {
    expect(rules({ ...returns(), description })).toContain('description must be 1-1000 characters');
  });

  it('rule 4: initial_step must reference an existing step; required with steps, refused without', () => {
    expect(rules({ ...returns(), initial_step: 'nope' })).toContain('initial_step must reference an existing step: nope does not exist');
    expect(rules({ ...returns(), initial_step: undefined })).toContain('initial_step is required when the journey has steps');
    expect(rules({ ...returns(), steps: [], transitions: [], initial_step: 'ask_order' })).toContain(
      'initial_step must reference an existing step: the journey has no steps',
    );
    expect(rules({ ...returns(), steps: [], initial_step: undefined })).toContain(
      'transitions must be empty when the journey has no steps',
    );
  });

  it('rule 5: step ids unique within the journey and well-formed', () => {
    const j = returns();
    j.steps[4] = { ...j.steps[4]!, id: 'refund' };
    expect(rules(j)).toContain('steps[4].id must be unique within the journey: refund is used twice');
    const bad = returns();
    bad.steps[1] = { ...bad.steps[1]!, id: 'has space' };
    expect(fields(bad)).toContain('steps[1].id');
  });

  it('rule 6: transitions must reference existing steps (from and to)', () => {
    const j = returns();
    j.transitions[0] = { ...j.transitions[0]!, to: 'ghost' };
    j.transitions.push({ from: 'phantom', to: 'confirm', priority: 0 });
    expect(rules(j)).toEqual(
      expect.arrayContaining([
        'transitions[0].to must reference an existing step: ghost does not exist',
        'transitions[6].from must reference an existing step: phantom does not exist',
      ]),
    );
  });

  it('rule 7: step guidelines must reference existing guidelines (when the catalog is given)', () => {
    const j = returns();
    j.steps[0] = { ...j.steps[0]!, guidelines: ['g1', 'g-missing'] };
    expect(rules(j, { guidelines: new Set(['g1']) })).toEqual([
      'steps[0].guidelines[1] must reference an existing guideline: g-missing does not exist',
    ]);
    expect(validateJourney(j)).toEqual([]);
  });

  it.each([101, -101, 1.5])('rule 8: transition priority an integer from -100 to 100 (%s)', (priority) => {
    const j = returns();
    j.transitions[1] = { ...j.transitions[1]!, priority };
    expect(rules(j)).toContain('transitions[1].priority must be an integer from -100 to 100');
  });

  it('every step must be reachable from the initial step', () => {
    const j = returns();
    j.steps.push(step('orphan', 'chat'));
    j.transitions.push({ from: 'orphan', to: 'confirm', priority: 0 });
    expect(rules(j)).toContain('steps[6] must be reachable from the initial step ask_order: orphan is not');
  });

  it('a final step must be reachable from every step, and there must be one', () => {
    const loop = returns();
    loop.steps.push(step('loop', 'chat'));
    loop.transitions.push(
      { from: 'ask_reason', to: 'loop', condition: 'the customer rambles', priority: 5 },
      { from: 'loop', to: 'loop', condition: 'still rambling', priority: 0 },
    );
    expect(rules(loop)).toContain('steps[6] must lead to a final step: from loop the journey can never complete');
    const noFinal: JourneyDefinition = {
      ...returns(),
      steps: [step('a', 'chat'), step('b', 'chat')],
      transitions: [
        { from: 'a', to: 'b', priority: 0 },
        { from: 'b', to: 'a', priority: 0 },
      ],
      initial_step: 'a',
    };
    expect(rules(noFinal)).toContain('steps must include a final step so the journey can complete');
  });

  it('terminal steps: a final step has no outgoing transitions; any other step has one', () => {
    const j = returns();
    j.transitions.push({ from: 'confirm', to: 'ask_order', priority: 0 });
    expect(rules(j)).toContain('steps[5].kind a final step ends the journey: confirm must have no outgoing transitions');
    const dead = returns();
    dead.transitions = dead.transitions.filter((t) => t.from !== 'exchange');
    expect(rules(dead)).toContain('steps[4] must have an outgoing transition or be of kind final: exchange is a dead end');
  });

  it('a fork needs at least two branches, each with a condition', () => {
    const j = returns();
    j.transitions[3] = { from: 'decide', to: 'exchange', priority: 0 };
    expect(rules(j)).toContain('transitions[3].condition is required on a branch of fork decide');
    const single = returns();
    single.transitions.splice(3, 1);
    single.transitions.push({ from: 'ask_reason', to: 'exchange', condition: 'wants exchange', priority: 1 });
    expect(rules(single)).toContain('steps[2] a fork must have at least two outgoing transitions: decide has 1');
  });

  it('kinds: tool steps name a defined tool, chat steps have an instruction, only tool steps carry a tool', () => {
    const j = returns();
    j.steps[3] = { ...j.steps[3]!, tool: 'wire_money' };
    j.steps[1] = { ...j.steps[1]!, instruction: undefined as unknown as string };
    delete j.steps[1]!.instruction;
    j.steps[4] = { ...j.steps[4]!, tool: 'issue_refund' };
    expect(rules(j, { tools: new Set(['issue_refund']) })).toEqual(
      expect.arrayContaining([
        'steps[3].tool must name a tool defined on the agent: wire_money is not defined',
        'steps[1].instruction is required for a chat step',
        'steps[4].tool is allowed only on a tool step',
      ]),
    );
    const noTool = returns();
    delete noTool.steps[3]!.tool;
    expect(rules(noTool)).toContain('steps[3].tool is required for a tool step');
    expect(fields({ ...returns(), steps: [step('x', 'wait' as never), ...returns().steps] })).toContain('steps[0].kind');
  });

  it('required_context must name defined context variables (when the catalog is given)', () => {
    expect(rules(returns(), { contextVariables: new Set(['other']) })).toEqual([
      'steps[0].required_context[0] must name a defined context variable: order_number is not defined',
    ]);
  });

  it('the next step must be unambiguous: no two unconditional transitions from a step, no repeated pair', () => {
    const j = returns();
    j.transitions.push({ from: 'ask_reason', to: 'exchange', priority: 0 });
    expect(rules(j)).toContain(
      'steps[1] must have at most one unconditional outgoing transition: ask_reason has several, so the next step is ambiguous',
    );
    const twice = returns();
    twice.transitions.push({ ...twice.transitions[0]! });
    expect(rules(twice)).toContain('transitions[6] must not repeat another transition from ask_order to ask_reason');
  });

  it('timeouts are bounded and expiry is not shorter than abandonment', () => {
    expect(fields({ ...returns(), timeouts: { abandon_after_secs: 10, expire_after_secs: 600 } })).toEqual(['timeouts.abandon_after_secs']);
    expect(rules({ ...returns(), timeouts: { abandon_after_secs: 600, expire_after_secs: 300 } })).toEqual([
      'timeouts.expire_after_secs must not be shorter than timeouts.abandon_after_secs',
    ]);
  });

  it('an agent lists each journey once and journey names are unique', () => {
    expect(
      validateAgentJourneys([
        { id: 'a', title: 'Returns' },
        { id: 'b', title: 'Returns' },
        { id: 'a', title: 'X' },
      ]),
    ).toEqual([
      { field: 'journeys[1]', rule: 'journey names must be unique within the agent: Returns is used twice' },
      { field: 'journeys[2]', rule: 'must not list journey a twice' },
    ]);
  });
});

describe('journeyMermaid', () => {
  it('draws the steps, the initial and final states and every transition with its condition', () => {
    const chart = journeyMermaid(returns());
    expect(chart.split('\n')).toEqual(
      expect.arrayContaining([
        'stateDiagram-v2',
        '    state "ask order" as S0',
        '    [*] --> S0',
        '    S0 --> S1: the customer gave their order number',
        '    S2 --> S3: the customer wants their money back (priority 10)',
        '    S1 --> S2',
        '    S5 --> [*]',
        '    class S3 tool',
      ]),
    );
  });

  it('escapes Mermaid syntax in labels and draws a description-only journey as one state', () => {
    const j = returns();
    j.transitions[0] = { ...j.transitions[0]!, condition: 'says "yes": ok; done' };
    expect(journeyMermaid(j)).toContain('S0 --> S1: says #34;yes#34;#58; ok#59; done');
    expect(journeyMermaid({ ...returns(), steps: [], transitions: [], initial_step: undefined })).toBe(
      'stateDiagram-v2\n    state "Process a return" as J\n    [*] --> J\n    J --> [*]',
    );
  });
});
