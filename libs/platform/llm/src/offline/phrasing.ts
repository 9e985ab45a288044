/**
 * How the offline composer says a guideline's action to the customer. Actions are written to the agent, in the
 * imperative ("Remind them to bring a valid passport"); the reply speaks as the agent to the customer ("Please
 * remember to bring a valid passport."). Lexical rules only, so the same action always reads the same way.
 */

/** One sentence of the reply and the part of the action it says (composited_canned matches templates to that part). */
export interface Phrase {
  text: string;
  source: string;
}

const OBJECT = String.raw`(?:them|the (?:customer|user|client))`;

// "you" is the subject after these words ("so you can help", "how you can help")…
const SUBJECT_OPENERS = new Set([
  'and',
  'or',
  'but',
  'so',
  'that',
  'if',
  'whether',
  'when',
  'while',
  'because',
  'since',
  'until',
  'unless',
  'before',
  'after',
  'once',
  'then',
  'as',
  'how',
  'what',
  'where',
  'why',
  'which',
  'who',
]);
// …and before these ("make sure you have"); anywhere else it is an object ("thank them for choosing you").
const AUXILIARIES = new Set([
  'can',
  'cannot',
  'could',
  'will',
  'would',
  'shall',
  'should',
  'may',
  'might',
  'must',
  'do',
  'did',
  'have',
  'had',
  'need',
  'want',
  'were',
  'are',
]);

/** "you" (the agent, in an action) as the agent says it: "I" as a subject, "me" as an object. */
function agentPronoun(before: string, after: string): string {
  const previous = /([\p{L}']+)[^\p{L}']*$/u.exec(before)?.[1]?.toLowerCase();
  const next = /^[^\p{L}']*([\p{L}']+)/u.exec(after)?.[1]?.toLowerCase();
  const subject =
    previous === undefined || /[,;:]\s*$/.test(before) || SUBJECT_OPENERS.has(previous) || (next !== undefined && AUXILIARIES.has(next));
  return subject ? 'I' : 'me';
}

/** Actions are written to the agent ("introduce yourself", "ask them"); the reply speaks as the agent to the customer. */
export const toCustomer = (text: string): string =>
  text
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byours\b/gi, 'mine')
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou(?:'re| are)\b/gi, 'I am')
    .replace(/\byou were\b/gi, 'I was')
    .replace(/\byou'(ve|ll|d)\b/gi, "I'$1")
    .replace(/\byou\b/gi, (_, offset: number, whole: string) => agentPronoun(whole.slice(0, offset), whole.slice(offset + 3)))
    .replace(/\b(the customer|the user|the client)'s\b/gi, 'your')
    .replace(/\b(the customer|the user|the client)\b/gi, 'you')
    .replace(/\bthemselves\b/gi, 'yourself')
    .replace(/\btheirs\b/gi, 'yours')
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthem\b/gi, 'you');

const asYou = (they: string): string => (they.charAt(0) === 'T' ? 'You' : 'you');

/**
 * In what the agent tells the customer, a leading "they" is the customer ("tell them they can return it"); later
 * ones may be anything ("orders can be cancelled until they ship"), so only the first is turned.
 */
const customerAsSubject = (clause: string): string =>
  clause.replace(/^(that\s+)?(they)\b/i, (_, that: string | undefined, they: string) => `${that ?? ''}${asYou(they)}`);

/** What the customer is asked to do or to answer is about themselves: every "they" is the customer ("ask them to check whether they got it"). */
const customerThroughout = (text: string): string => text.replace(/\bthey\b/gi, asYou);

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const lowered = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);
/** The text ending in `mark`, unless it already ends a sentence. */
const ended = (text: string, mark: '.' | '?' | '!'): string => (/[.!?]$/.test(text) ? text : `${text}${mark}`);

const FINITE = new Set([
  'is',
  'are',
  'was',
  'were',
  'am',
  'will',
  'would',
  'can',
  'cannot',
  'could',
  'should',
  'shall',
  'may',
  'might',
  'must',
  'has',
  'have',
  'had',
  'do',
  'does',
  'did',
]);
const NOT_A_SUBJECT = new Set([
  'about',
  'of',
  'on',
  'regarding',
  'for',
  'with',
  'how',
  'what',
  'when',
  'where',
  'why',
  'which',
  'who',
  'whether',
  'if',
]);
const RELATIVE = new Set(['that', 'which', 'who', 'whom', 'whose', 'where', 'when']);

/**
 * Whether what follows "tell them" is a clause ("orders can be cancelled", "it's free") rather than a noun phrase
 * ("their current plan", "the price, which is 10 euros") or a topic ("about the fee"): a subject, then a finite
 * verb that does not open a relative clause. Verbs without an auxiliary are not recognised; such actions are
 * promised instead ("I will tell you the order shipped"), which is still a whole sentence.
 */
/** A text's words, lowercased, apostrophes kept ("it's", "don't"). */
const wordsOf = (text: string): string[] =>
  text
    .toLowerCase()
    .replace(/’/g, "'")
    .split(/[^\p{L}']+/u)
    .filter(Boolean);

function looksLikeClause(text: string): boolean {
  const words = wordsOf(text);
  if (words.length < 2 || NOT_A_SUBJECT.has(words[0] ?? '')) return false;
  if (/^(?:it|they|we|there|that|he|she|i|you)'(?:s|re|ve|ll|d|m)$/.test(words[0] ?? '')) return true;
  const verb = words.findIndex((word, i) => i > 0 && (FINITE.has(word) || /n't$/.test(word)));
  return verb > 0 && !RELATIVE.has(words[verb - 1] ?? '');
}

const DETERMINERS = new Set([
  'a',
  'an',
  'the',
  'my',
  'your',
  'our',
  'their',
  'its',
  'his',
  'her',
  'this',
  'that',
  'these',
  'those',
  'some',
  'any',
  'no',
  'every',
  'each',
  'all',
]);

/**
 * What follows "mention that" is a clause unless "that" was a demonstrative ("explain that policy"): a recognised
 * clause, or a word in -s or -ed among its first few that no determiner introduces ("standard delivery takes …",
 * "Acme refunds any order …"), i.e. a verb in the present or past rather than a plural noun.
 */
function looksLikeStatedClause(text: string): boolean {
  if (looksLikeClause(text)) return true;
  const words = wordsOf(text);
  return words.slice(1, 5).some((word, i) => /(?:[^s]s|ed)$/.test(word) && !DETERMINERS.has(words[i] ?? ''));
}

/** "Verb them to X": how the agent says it to the customer, for each verb that takes an infinitive. */
const INFINITIVE_PHRASES: Record<string, (doing: string, negated: boolean) => string> = {
  ask: (doing, negated) => (negated ? `Please don't ${doing}.` : `Could you ${doing}?`),
  tell: (doing, negated) => (negated ? `Please don't ${doing}.` : `Please ${doing}.`),
  instruct: (doing, negated) => (negated ? `Please don't ${doing}.` : `Please ${doing}.`),
  remind: (doing, negated) => `Please remember ${negated ? 'not ' : ''}to ${doing}.`,
  advise: (doing, negated) => `I'd advise you ${negated ? 'not ' : ''}to ${doing}.`,
  encourage: (doing, negated) => `I'd encourage you ${negated ? 'not ' : ''}to ${doing}.`,
  urge: (doing, negated) => `I'd urge you ${negated ? 'not ' : ''}to ${doing}.`,
  invite: (doing, negated) => (negated ? `Please don't ${doing}.` : `You're welcome to ${doing}.`),
  warn: (doing, negated) => (negated ? `Please don't ${doing}.` : `Please make sure to ${doing}.`),
};
const INFINITIVE = new RegExp(String.raw`^(${Object.keys(INFINITIVE_PHRASES).join('|')})\s+${OBJECT}\s+(not\s+)?to\s+(.+)$`, 'i');

/** "Tell them (that) X": a clause passed on, said plainly or with the verb's nuance. */
const CLAUSE_PHRASES: Record<string, (clause: string) => string> = {
  tell: (clause) => `${capitalised(clause)}.`,
  inform: (clause) => `${capitalised(clause)}.`,
  let: (clause) => `${capitalised(clause)}.`,
  remind: (clause) => `Just a reminder that ${clause}.`,
  warn: (clause) => `Please note that ${clause}.`,
};
const TELLING = new RegExp(String.raw`^(?:(tell|inform|remind|warn)\s+${OBJECT}|(let)\s+${OBJECT}\s+know)(?:\s+(that)\b)?\s+(.+)$`, 'i');

const QUOTED_LINE = new RegExp(
  String.raw`^(say|reply|respond|answer|ask|write|tell\s+${OBJECT})(?:\s+(?:with|that|back|exactly|something like|to\s+${OBJECT}))*\s*[:,]?\s*['"‘“](.+)['"’”]$`,
  'iu',
);
const GREETING = /^(?:greet|welcome|say\s+(?:hello|hi|hey))\b/i;
const WELCOME_TO = /^welcome\b.*?\bto\s+(.+)$/i;
const INTRODUCE = /^introduce\s+(?:yourself|myself)(?:\s+as\s+(.+))?$/i;
const ASK_FOR = new RegExp(String.raw`^ask\s+(?:${OBJECT}\s+)?for\s+(.+)$`, 'i');
const ASK_ABOUT = new RegExp(String.raw`^ask\s+(?:${OBJECT}\s+)?about\s+(.+)$`, 'i');
const ASK_WHICH = new RegExp(String.raw`^ask\s+(?:${OBJECT}\s+)?((?:how|what|when|where|which|who|whom|whose|why|whether|if)\b.+)$`, 'i');
/** "Mention that X", "explain that X", "note that X": X is what the agent says, as it is. */
const STATING = new RegExp(
  String.raw`^(?:mention|explain|note|point\s+out|say|add|confirm|clarify|state)(?:\s+to\s+${OBJECT})?\s+that\s+(.+)$`,
  'i',
);
/** "Offer to X": the agent offers, in the first person. */
const OFFER_TO = new RegExp(String.raw`^offer(?:\s+${OBJECT})?\s+to\s+(.+)$`, 'i');
/** "Thank them (back) (for X)". */
const THANK = new RegExp(String.raw`^thank\s+${OBJECT}(?:\s+back)?(?:\s+for\s+(.+))?$`, 'i');

/**
 * An indirect question as the direct one the customer is asked: "how I can help" → "How can I help?", "if there is
 * anything else" → "Is there anything else?". Undefined when the clause is not of those shapes.
 */
function directQuestion(indirect: string): string | undefined {
  const asked =
    /^(how|what|when|where|which|who|why)\s+(I|you|we|they|it|there)\s+(can|could|should|will|would|may|might|must|is|are)\s+(.+)$/i.exec(
      indirect,
    );
  if (asked?.[1] && asked[2] && asked[3] && asked[4]) return `${capitalised(asked[1].toLowerCase())} ${asked[3]} ${asked[2]} ${asked[4]}?`;
  const yesNo = /^(?:if|whether)\s+there\s+(is|are)\s+(.+)$/i.exec(indirect);
  if (yesNo?.[1] && yesNo[2]) return `${capitalised(yesNo[1].toLowerCase())} there ${yesNo[2]}?`;
  return undefined;
}

/** Imperatives never start with these: an action that does is already what to say ("Our store opens at 9"). */
const DECLARATIVE_START = /^(?:i|i'm|we|we're|we'll|we've|our|my|it|it's|its|there|there's|this|these|those|the|a|an|no|all|every)\b/i;

/**
 * What the agent says for one clause of an action, as sentences, or undefined when the clause is something the
 * agent does rather than says ("Explain the refund policy"), which the caller promises ("I will …").
 */
function said(clause: string, agentName: string): string[] | undefined {
  const quoted = QUOTED_LINE.exec(clause);
  if (quoted?.[2]) return [ended(quoted[2], /^ask/i.test(quoted[1] ?? '') ? '?' : '.')];
  const line = /^['"‘“](.+)['"’”]$/u.exec(clause);
  if (line?.[1]) return [ended(line[1], '.')];
  if (GREETING.test(clause)) {
    const place = WELCOME_TO.exec(clause)?.[1];
    return place ? [`Hello, I'm ${agentName}!`, `Welcome to ${toCustomer(place)}!`] : [`Hello, I'm ${agentName}!`];
  }
  const introduce = INTRODUCE.exec(clause);
  if (introduce) return [`I'm ${introduce[1] ? toCustomer(introduce[1]) : agentName}.`];
  const infinitive = INFINITIVE.exec(clause);
  const phraseOf = INFINITIVE_PHRASES[infinitive?.[1]?.toLowerCase() ?? ''];
  if (infinitive?.[3] && phraseOf) return [phraseOf(customerThroughout(toCustomer(infinitive[3])), infinitive[2] !== undefined)];
  const askFor = ASK_FOR.exec(clause);
  if (askFor?.[1]) return [`Could you share ${toCustomer(askFor[1])}?`];
  const askAbout = ASK_ABOUT.exec(clause);
  if (askAbout?.[1]) return [`Could you tell me about ${customerThroughout(toCustomer(askAbout[1]))}?`];
  const askWhich = ASK_WHICH.exec(clause);
  if (askWhich?.[1]) {
    const indirect = customerThroughout(toCustomer(askWhich[1]));
    return [directQuestion(indirect) ?? `Could you tell me ${indirect}?`];
  }
  const stating = STATING.exec(clause);
  if (stating?.[1] && looksLikeStatedClause(stating[1])) return [ended(capitalised(customerAsSubject(toCustomer(stating[1]))), '.')];
  const offer = OFFER_TO.exec(clause);
  if (offer?.[1]) return [`I'd be happy to ${toCustomer(offer[1])}.`];
  const thank = THANK.exec(clause);
  if (thank) return [thank[1] ? `Thank you for ${toCustomer(thank[1])}.` : 'Thank you!'];
  const telling = TELLING.exec(clause);
  const tell = CLAUSE_PHRASES[(telling?.[1] ?? telling?.[2] ?? '').toLowerCase()];
  if (telling?.[4] && tell && (telling[3] !== undefined || looksLikeClause(telling[4])))
    return [tell(customerAsSubject(toCustomer(telling[4])))];
  if (DECLARATIVE_START.test(clause)) return [ended(capitalised(clause.replace(/\b(the customer|the user|the client)\b/gi, 'you')), '.')];
  return undefined;
}

/** The agent promises what it does: "Explain the refund policy" → "I will explain the refund policy." */
const promised = (clause: string): string => `I will ${lowered(toCustomer(clause))}.`;

// Verbs that start a new clause of an action after "and", "then" or a comma ("Welcome them and offer the guide").
const VERBS = new Set(
  (
    'acknowledge add advise apologise apologize arrange ask assure cancel check clarify collect confirm congratulate create describe encourage ' +
    'escalate explain find gather give greet inform introduce invite let look make mention notify offer open promise propose provide ' +
    'reassure recommend refer remind remove resend respond say send share suggest summarise summarize tell thank track urge verify warn'
  ).split(' '),
);
// Words that are verbs or nouns ("and book the flight" / "name and email"): a verb only when an object follows.
const NOUN_OR_VERB = new Set(
  'answer book call close contact direct email follow guide help issue link list lock note order point process refund reply request reset return schedule show start transfer update walk welcome'.split(
    ' ',
  ),
);
const OBJECT_START = new Set([
  'a',
  'an',
  'the',
  'them',
  'their',
  'it',
  'its',
  'this',
  'that',
  'these',
  'those',
  'my',
  'your',
  'our',
  'some',
  'any',
  'all',
  'up',
  'out',
  'back',
  'to',
  'for',
  'with',
  'about',
  'how',
  'what',
  'whether',
  'if',
]);
// What an agent does towards the customer, never what it asks the customer to do: after "ask them to X and …" only
// these start a clause of the agent's own ("… and offer a voucher"); other verbs continue X ("… and check the lights").
const TOWARDS_CUSTOMER = new Set(
  'acknowledge advise apologise apologize assure congratulate encourage escalate greet inform invite offer promise reassure recommend remind suggest thank urge warn welcome'.split(
    ' ',
  ),
);

/** "Tell them …", "ask the customer …": a verb with the customer as its object. */
const TO_THE_CUSTOMER = new RegExp(String.raw`^\p{L}+\s+${OBJECT}\b`, 'iu');

/** Whether the text starts with a verb of the agent's, so that it begins a clause of its own. */
function startsWithVerb(text: string): boolean {
  const [first, second] = /^(\p{L}+)(?=[\s,;]|$)\s*(\p{L}+)?/u.exec(text)?.slice(1) ?? [];
  const verb = first?.toLowerCase() ?? '';
  return VERBS.has(verb) || (NOUN_OR_VERB.has(verb) && second !== undefined && OBJECT_START.has(second.toLowerCase()));
}

const QUOTATION = /(?<![\p{L}\p{N}])['"‘“].+?['"’”](?![\p{L}\p{N}])/gu;
/** The text with the inside of quotations blanked out (same length), so that no split falls inside what is said verbatim. */
const unquoted = (text: string): string =>
  text.replace(QUOTATION, (quote) => `${quote.charAt(0)}${'x'.repeat(quote.length - 2)}${quote.charAt(quote.length - 1)}`);

/** The text cut at the offsets where each separator starts and ends: [clause, separator, clause, …]. */
function cut(text: string, separators: readonly { start: number; end: number }[]): string[] {
  const parts: string[] = [];
  let from = 0;
  for (const { start, end } of separators) {
    parts.push(text.slice(from, start), text.slice(start, end));
    from = end;
  }
  parts.push(text.slice(from));
  return parts;
}

/** The author's sentences of an action ("Greet them. Offer the guide."), never cutting "a.m." or "e.g." or a quotation. */
const sentencesOf = (action: string): string[] =>
  cut(
    action,
    [...unquoted(action).matchAll(/(?:(?<=[^\s.]{2}[.!?])\s+(?=[\p{Lu}'"‘“])|;\s*)/gu)].map((m) => ({
      start: m.index,
      end: m.index + m[0].length,
    })),
  ).filter((_, i) => i % 2 === 0);

/** Where a sentence may split into clauses: before a verb, after "and", "then", "and then" or a comma. */
function clauseSeparators(sentence: string): { start: number; end: number }[] {
  const separators = [...unquoted(sentence).matchAll(/,\s*(?:and\s+then\s+|and\s+|then\s+)?|\s+(?:and\s+then|and|then)\s+/g)];
  return separators
    .filter((m) => startsWithVerb(sentence.slice(m.index + m[0].length)))
    .map((m) => ({ start: m.index, end: m.index + m[0].length }));
}

/**
 * Whether the next clause continues the running one rather than starting a sentence of its own: after "ask them
 * to X", a verb the customer could do continues X; two things the agent does stay one promise ("I will explain
 * the policy and offer to check your order"); anything said (a greeting, a question, a statement) stands alone.
 */
function continues(running: string, next: string, agentName: string): boolean {
  const verb = /^\p{L}+/u.exec(next)?.[0].toLowerCase() ?? '';
  const addressed = TOWARDS_CUSTOMER.has(verb) || TO_THE_CUSTOMER.test(next);
  if (INFINITIVE.test(running) && !addressed) return true;
  return said(running, agentName) === undefined && said(next, agentName) === undefined;
}

/**
 * One action as the sentences of the reply. The action is cut into its sentences and those into clauses at
 * "and"/"then"/commas before a verb; each clause the agent says becomes its own sentence (a greeting keeps what
 * follows it: "Welcome them and offer the guide" → "Hello, I'm Ada! I will offer the guide."), while
 * neighbouring things the agent does stay together as one promise.
 */
export function phrasesFor(action: string, agentName: string): Phrase[] {
  const phrases: Phrase[] = [];
  for (const sentence of sentencesOf(action.trim())) {
    const parts = cut(sentence, clauseSeparators(sentence));
    const clauses: string[] = [];
    for (let i = 0; i < parts.length; i += 2) {
      const clause = (parts[i] ?? '').trim().replace(/[\s.!?;:,]+$/u, '');
      const running = clauses.at(-1);
      if (clause === '') continue;
      if (running !== undefined && continues(running, clause, agentName))
        clauses[clauses.length - 1] = `${running}${parts[i - 1] ?? ' '}${clause}`;
      else clauses.push(clause);
    }
    for (const clause of clauses) for (const text of said(clause, agentName) ?? [promised(clause)]) phrases.push({ text, source: clause });
  }
  // "Greet them and introduce yourself as Ada": the greeting already says who the agent is.
  const greeted = phrases.some((p) => p.text.startsWith(`Hello, I'm ${agentName}`));
  return phrases.filter(
    (p) => !(greeted && INTRODUCE.test(p.source) && agentName.toLowerCase().includes(p.text.slice(4, -1).toLowerCase())),
  );
}
