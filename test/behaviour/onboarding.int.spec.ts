import { behaviourSuite, type GuidelineSpec } from './support/scenario.js';

/**
 * Account onboarding: sign-up, verification, two-factor setup, workspaces. Continuous guidelines, top N by
 * priority, dependency_any, the glossary, and context variables — required context (a customer value, a value
 * for every customer, a default value, a value removed mid-conversation) and template fields in canned modes.
 */

const signup: GuidelineSpec = {
  condition: 'The customer wants to sign up or create an account',
  action: 'Send the sign-up link and list the three setup steps',
};
const verify: GuidelineSpec = {
  condition: 'The customer did not receive the verification email',
  action: 'Resend the verification email and ask them to check spam',
};
const twoFactor: GuidelineSpec = {
  condition: 'The customer asks how to set up two-factor authentication',
  action: 'Walk them through enabling two-factor authentication in settings',
};
const welcome: GuidelineSpec = {
  condition: 'The customer is new and asks about getting started',
  action: 'Welcome them and offer the getting started guide',
  continuous: true,
};
const invite: GuidelineSpec = {
  condition: 'The customer asks how to invite teammates',
  action: 'Explain how to invite teammates to the company workspace',
  required_context: ['company_name'],
};

const SIGNUP_SENTENCE = 'I will send the sign-up link and list the three setup steps.';

behaviourSuite('onboarding', [
  {
    title: 'a new customer who wants an account gets the sign-up link',
    given: { guidelines: { signup, twoFactor } },
    when: ['How do I create an account?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['signup']);
      expect(turn!.reply).toBe(SIGNUP_SENTENCE);
    },
  },
  {
    title: 'a missing verification email is resent',
    given: { guidelines: { signup, verify } },
    when: ['I did not receive the verification email'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['verify']);
      expect(turn!.reply).toContain('resend the verification email');
    },
  },
  {
    title: 'two-factor setup questions get the walkthrough',
    given: { guidelines: { twoFactor, verify } },
    when: ['How can I set up two-factor authentication?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['twoFactor']);
      expect(turn!.reply).toContain('two-factor authentication in settings');
    },
  },
  {
    title: 'glossary: "2FA" is read as two-factor authentication',
    given: {
      guidelines: { twoFactor, verify },
      terms: [
        { name: 'two-factor authentication', description: 'A second sign-in step with a code from an app', synonyms: ['2FA', 'MFA'] },
      ],
    },
    when: ['How do I turn on 2FA?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['twoFactor']);
      expect(turn!.glossary).toEqual(['two-factor authentication']);
    },
  },
  {
    title: 'a continuous guideline applies on every turn its condition holds',
    given: { guidelines: { welcome, signup } },
    when: ['I am new, how do I get started?', 'Still new here, getting started is confusing'],
    then: ([first, second]) => {
      expect(first!.matched).toEqual(['welcome']);
      expect(first!.applied).toEqual([]);
      expect(second!.matched).toEqual(['welcome']);
      expect(second!.details['welcome']!.previously_applied).toBe(false);
      expect(second!.reply).toContain('Hello, I');
    },
  },
  {
    title: 'a step-by-step onboarding: each guideline applies in its own turn and is not repeated',
    given: { guidelines: { signup, verify, twoFactor } },
    when: ['I want to sign up', 'I did not receive the verification email', 'Now how do I set up two-factor authentication?'],
    then: ([first, second, third]) => {
      expect([first, second, third].map((t) => t!.matched)).toEqual([['signup'], ['verify'], ['twoFactor']]);
      expect([first, second, third].map((t) => t!.applied)).toEqual([['signup'], ['verify'], ['twoFactor']]);
      expect(second!.reply).not.toContain('sign-up link');
      expect(third!.reply).not.toContain('verification email');
    },
  },
  {
    title: 'top N: of four matching guidelines the three with the highest priority are kept',
    given: {
      guidelines: {
        a: { condition: 'The customer asks about account setup steps', action: 'List the setup steps', priority: 4 },
        b: { condition: 'The customer asks about account setup help', action: 'Offer setup help', priority: 3 },
        c: { condition: 'The customer asks about account setup time', action: 'Say setup takes five minutes', priority: 2 },
        d: { condition: 'The customer asks about account setup', action: 'Link the setup video', priority: 1 },
      },
    },
    when: ['Can you help me with account setup steps and setup time?'],
    then: ([turn]) => {
      expect(turn!.ranked).toEqual(['a', 'b', 'c', 'd']);
      expect(turn!.matched).toEqual(['a', 'b', 'c']);
      expect(turn!.reply).not.toContain('setup video');
    },
  },
  {
    title: 'the agent can keep fewer matches: with top N 1 only the highest priority acts',
    given: {
      agent: { matching: { top_n: 1 } },
      guidelines: { signup: { ...signup, priority: 1 }, twoFactor },
    },
    when: ['I want to create an account and set up two-factor authentication'],
    then: ([turn]) => {
      expect([...turn!.ranked].sort()).toEqual(['signup', 'twoFactor']);
      expect(turn!.matched).toEqual(['signup']);
      expect(turn!.reply).toBe(SIGNUP_SENTENCE);
    },
  },
  {
    title: 'dependency_any: the security tip applies when either the sign-up or the two-factor guideline does',
    given: {
      guidelines: {
        signup,
        twoFactor,
        tip: { condition: 'The customer asks about an account or authentication', action: 'Mention the premium security pack' },
      },
      relationships: [
        { source: 'tip', target: 'signup', kind: 'dependency_any' },
        { source: 'tip', target: 'twoFactor', kind: 'dependency_any' },
      ],
    },
    when: ['How do I set up two-factor authentication on my account?'],
    then: ([turn]) => {
      expect([...turn!.matched].sort()).toEqual(['tip', 'twoFactor']);
      expect(turn!.steps).toEqual([expect.objectContaining({ kind: 'dependency_any', effect: 'kept', guideline: 'tip' })]);
    },
  },
  {
    title: 'canned_fluid: a fitting template is used as the reply',
    given: {
      agent: { composition_mode: 'canned_fluid' },
      guidelines: { verify },
      cannedResponses: { resend: { value: 'I have resent the verification email; please check your spam folder too.' } },
    },
    when: ['I never got the verification email'],
    then: ([turn]) => {
      expect(turn!.reply).toBe('I have resent the verification email; please check your spam folder too.');
      expect(turn!.cannedResponse).toBe('resend');
      expect(turn!.applied).toEqual(['verify']);
    },
  },
  {
    title: 'a disabled guideline never matches',
    given: { guidelines: { signup, verify: { ...verify, enabled: false } } },
    when: ['I want to sign up and create an account, and I did not receive the verification email'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['signup']);
      expect(turn!.reply).not.toContain('verification');
    },
  },
  {
    title: 'required context: the invite guideline applies with a company name set for every customer',
    given: { guidelines: { invite, signup }, context: { company_name: { everyone: 'Acme' } } },
    when: ['How do I invite teammates?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['invite']);
      expect(turn!.details['invite']!.matched_context).toEqual({ company_name: 'Acme' });
    },
  },
  {
    title:
      "required context: without a company name the invite guideline is no candidate, and it stops applying when the customer's value is removed",
    given: { guidelines: { invite, signup }, context: { company_name: { value: 'Globex' } } },
    when: ['How do I invite teammates?', { clearContext: ['company_name'] }, 'How do I invite my teammates?'],
    then: ([withValue, without]) => {
      expect(withValue!.matched).toEqual(['invite']);
      expect(withValue!.details['invite']!.matched_context).toEqual({ company_name: 'Globex' });
      expect(without!.matched).toEqual([]);
      expect(without!.ranked).toEqual([]);
      expect(without!.reply).not.toContain('workspace');
    },
  },
  {
    title: "strict canned: a variable's default value fills the template and satisfies required context",
    given: {
      agent: { composition_mode: 'strict_canned' },
      guidelines: {
        plan: { condition: 'The customer asks which plan they are on', action: 'Tell them their current plan', required_context: ['plan'] },
      },
      cannedResponses: {
        current: { value: 'You are on the {{plan}} plan.' },
        upgrade: { value: 'You can upgrade at any time in billing settings.' },
      },
      context: { plan: { default_value: 'free' } },
    },
    when: ['Which plan am I on?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['plan']);
      expect(turn!.reply).toBe('You are on the free plan.');
      expect(turn!.cannedResponse).toBe('current');
    },
  },
  {
    title: "strict canned: the customer's own value wins over the value for every customer",
    given: {
      agent: { composition_mode: 'strict_canned' },
      guidelines: { workspace: { condition: 'The customer asks for their workspace name', action: 'Tell them their workspace name' } },
      cannedResponses: { name: { value: 'Your workspace is called {{company_name}}.' } },
      context: { company_name: { everyone: 'Acme', value: 'Globex' } },
    },
    when: ['What is my workspace name?'],
    then: ([turn]) => {
      expect(turn!.reply).toBe('Your workspace is called Globex.');
    },
  },
  {
    title: 'offline provider: a bare "yes" continues the previous message, as an order number does',
    given: { guidelines: { welcome } },
    when: ['I am new, how do I get started?', 'yes'],
    then: ([first, yes]) => {
      expect(first!.matched).toEqual(['welcome']);
      expect(yes!.matched).toEqual(['welcome']);
    },
  },
  {
    title: 'offline provider: a welcome action keeps what follows the greeting',
    given: { guidelines: { welcome } },
    when: ['I am new, how do I get started?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['welcome']);
      expect(turn!.reply).toContain("Hello, I'm Ada");
      expect(turn!.reply).toContain('getting started guide');
    },
  },
]);
