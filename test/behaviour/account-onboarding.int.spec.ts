import { behaviourSuite } from './support/scenario.js';

const signup = { condition: 'The customer wants to sign up or create an account', action: 'Send the sign-up link and list the three setup steps' };
const verify = { condition: 'The customer did not receive the verification email', action: 'Resend the verification email and ask them to check spam' };
const twoFactor = { condition: 'The customer asks how to set up two-factor authentication', action: 'Walk them through enabling two-factor authentication in settings' };
const welcome = { condition: 'The customer is new and asks about getting started', action: 'Welcome them and offer the getting started guide', continuous: true };

behaviourSuite('account-onboarding', [
  {
    title: 'a new customer who wants an account gets the sign-up link',
    given: { guidelines: { signup, twoFactor } },
    when: ['How do I create an account?'],
    then: ([turn]) => {
      expect(turn!.matched).toEqual(['signup']);
      expect(turn!.reply).toContain('sign-up link');
    },
  },
  {
    title: 'a missing verification email is resent',
    given: { guidelines: { signup, verify } },
    when: ['I did not receive the verification email'],
    then: ([turn]) => expect(turn!.matched).toEqual(['verify']),
  },
  {
    title: 'two-factor setup questions get the walkthrough',
    given: { guidelines: { twoFactor, verify } },
    when: ['How can I set up two-factor authentication?'],
    then: ([turn]) => expect(turn!.matched).toEqual(['twoFactor']),
  },
  {
    title: 'a continuous guideline applies again on every turn its condition holds',
    given: { guidelines: { welcome } },
    when: ['I am new, how do I get started?', 'Still new here, getting started is confusing'],
    then: ([first, second]) => {
      expect(first!.matched).toEqual(['welcome']);
      expect(second!.matched).toEqual(['welcome']);
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
    then: ([turn]) => expect(turn!.matched).toEqual(['a', 'b', 'c']),
  },
  {
    title: 'dependency_any: the premium tip applies when either the sign-up or the two-factor guideline does',
    given: {
      guidelines: { signup, twoFactor, tip: { condition: 'The customer asks about an account or authentication', action: 'Mention the premium security pack' } },
      relationships: [
        { source: 'tip', target: 'signup', kind: 'dependency_any' },
        { source: 'tip', target: 'twoFactor', kind: 'dependency_any' },
      ],
    },
    when: ['How do I set up two-factor authentication on my account?'],
    then: ([turn]) => expect([...turn!.matched].sort()).toEqual(['tip', 'twoFactor']),
  },
  {
    title: 'canned_fluid: a fitting template is used as the reply',
    given: {
      agent: { composition_mode: 'canned_fluid' },
      guidelines: { verify },
      cannedResponses: { resend: { value: 'I have resent the verification email; please check your spam folder too.' } },
    },
    when: ['I never got the verification email'],
    then: ([turn]) => expect(turn!.reply).toBe('I have resent the verification email; please check your spam folder too.'),
  },
  {
    title: 'a disabled guideline never matches',
    given: { guidelines: { signup, verify: { ...verify, enabled: false } } },
    when: ['I want to sign up and create an account, and I did not receive the verification email'],
    then: ([turn]) => expect(turn!.matched).toEqual(['signup']),
  },
]);
