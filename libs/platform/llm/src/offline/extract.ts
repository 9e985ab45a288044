import type {
  ExtractContextInput,
  ExtractContextOutput,
  ExtractedFact,
  ExtractedValue,
  VariableToExtract,
} from '../tasks/extract-context.js';

/**
 * Offline context extraction: deterministic patterns for what the issue asks an offline deployment to handle —
 * names, order numbers, emails, phone numbers, dates with a year, addresses — plus a variable's allowed values
 * named in the message. A variable is read as one of these kinds from its name, extraction prompt and
 * description. Relative dates ("tomorrow") need a clock the provider does not have and are left out.
 */

type Kind = 'email' | 'order_number' | 'phone' | 'date' | 'name' | 'address';

const EMAIL = /[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}/;
const ORDER =
  /\border(?:\s+(?:number|no\.?|num|id|reference|ref))?(?:\s+(?:is|was))?\s*[:#=]?\s*#?\s*([A-Za-z]{0,4}-?\d{3,}[A-Za-z0-9-]*)\b/i;
const HASH_NUMBER = /(?:^|\s)#\s?(\d{3,})\b/;
/** Digits with the separators people write (spaces, dots, dashes, brackets), not glued to letters or other digits. */
const PHONE = /(?<![\w+])\+?\(?\d[\d\s().-]{6,}\d(?![\w])/;
const NAME =
  /\b(?:[Mm]y name is|[Mm]y name's|[Nn]ame is|I am|I'm|I’m|[Tt]his is|[Cc]all me|[Ii]t's|[Ss]igned,?)\s+([A-Z][a-zA-Z'’-]+(?:\s+(?!And\b|From\b)[A-Z][a-zA-Z'’-]+)?)/;
/** "Ivan here", "Paul speaking" at the start of a message (after a greeting). */
const NAME_HERE = /^(?:(?:[Hh]i|[Hh]ey|[Hh]ello)\b[,!]?\s*)?([A-Z][a-zA-Z'’-]+)\s+(?:here|speaking)\b/;
const NOT_NAMES = new Set([
  'Sorry',
  'Fine',
  'Good',
  'Okay',
  'Ok',
  'Happy',
  'Here',
  'Back',
  'Not',
  'Just',
  'So',
  'Very',
  'Still',
  'Acme',
  'The',
  'A',
  'An',
  'In',
  'At',
  'On',
  'Looking',
  'Trying',
  'Calling',
  'Writing',
  'Interested',
]);
const ADDRESS =
  /\b(?:[Mm]y (?:new |current |home |delivery |shipping )?address is|I (?:now )?live (?:at|in)|I(?:'ve| have)? (?:just )?moved to|I'm moving to|I am moving to|[Ss]hip (?:it )?to|[Dd]eliver (?:it )?to)\s+([^.!?;\n]+?)(?:\s+(?:now|instead|since \w+))?\s*(?:[.!?;\n]|$)/;

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const ISO_DATE = /\b(\d{4})-(\d{1,2})-(\d{1,2})\b/;
const SLASH_DATE = /\b(\d{1,2})[/.](\d{1,2})[/.](\d{4})\b/;
const MONTH_FIRST = new RegExp(`\\b${MONTH}\\.?\\s+(\\d{1,2})(?:st|nd|rd|th)?,?\\s+(\\d{4})\\b`, 'i');
const DAY_FIRST = new RegExp(`\\b(\\d{1,2})(?:st|nd|rd|th)?\\s+(?:of\\s+)?${MONTH}\\.?,?\\s+(\\d{4})\\b`, 'i');

const pad = (n: number): string => String(n).padStart(2, '0');
const monthOf = (name: string): number => MONTHS.findIndex((m) => m.startsWith(name.toLowerCase().slice(0, 3))) + 1;

function validDate(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31) return undefined;
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCMonth() === m - 1 ? `${y}-${pad(m)}-${pad(d)}` : undefined;
}

/** A date with its year, as YYYY-MM-DD; `dd/mm/yyyy` is read day first unless that is impossible. */
export function findDate(text: string): string | undefined {
  let m = ISO_DATE.exec(text);
  if (m) return validDate(Number(m[1]), Number(m[2]), Number(m[3]));
  m = MONTH_FIRST.exec(text);
  if (m?.[1]) return validDate(Number(m[3]), monthOf(m[1]), Number(m[2]));
  m = DAY_FIRST.exec(text);
  if (m?.[2]) return validDate(Number(m[3]), monthOf(m[2]), Number(m[1]));
  m = SLASH_DATE.exec(text);
  if (m) return validDate(Number(m[3]), Number(m[2]), Number(m[1])) ?? validDate(Number(m[3]), Number(m[1]), Number(m[2]));
  return undefined;
}

const FINDERS: Record<Kind, (text: string) => string | undefined> = {
  email: (text) => EMAIL.exec(text)?.[0].toLowerCase(),
  order_number: (text) => {
    const found = ORDER.exec(text)?.[1] ?? HASH_NUMBER.exec(text)?.[1];
    return found?.toUpperCase();
  },
  phone: (text) => {
    // Not an order number or a date written with separators.
    const withoutOthers = text.replace(ORDER, ' ').replace(ISO_DATE, ' ').replace(SLASH_DATE, ' ');
    const found = PHONE.exec(withoutOthers)?.[0];
    if (!found) return undefined;
    const digits = found.replace(/[^\d]/g, '');
    return digits.length >= 8 && digits.length <= 15 ? `${found.trim().startsWith('+') ? '+' : ''}${digits}` : undefined;
  },
  date: findDate,
  name: (text) => {
    const found = NAME.exec(text)?.[1] ?? NAME_HERE.exec(text.trim())?.[1];
    if (!found) return undefined;
    const words = found.split(/\s+/).filter((w) => !NOT_NAMES.has(w));
    return words.length > 0 && words.length === found.split(/\s+/).length ? words.join(' ') : undefined;
  },
  address: (text) => ADDRESS.exec(text)?.[1]?.trim().replace(/\s+/g, ' '),
};

const CONFIDENCE: Record<Kind, number> = { email: 0.95, order_number: 0.9, phone: 0.85, date: 0.85, name: 0.8, address: 0.75 };

/** The kind of a variable, from what its designer wrote about it (name, prompt, description) and its data_type. */
export function kindOf(variable: VariableToExtract): Kind | undefined {
  const about = `${variable.name} ${variable.extraction_prompt} ${variable.description ?? ''}`.toLowerCase().replace(/_/g, ' ');
  if (variable.data_type === 'Date' || /\bdate\b|birthday|\bborn\b/.test(about)) return 'date';
  if (/e-?mail/.test(about)) return 'email';
  if (/phone|mobile|telephone|cell number/.test(about)) return 'phone';
  if (/\border\b|\border (?:number|id)|tracking/.test(about)) return 'order_number';
  if (/\bwhen\b|\bday\b/.test(about)) return 'date';
  if (/address|where .* lives?|\bcity\b|\blives?\b/.test(about)) return 'address';
  if (/\bname\b/.test(about)) return 'name';
  return undefined;
}

function allowedValueIn(text: string, allowed: readonly unknown[]): string | undefined {
  const lower = text.toLowerCase();
  const hit = allowed.filter(
    (a) =>
      (typeof a === 'string' || typeof a === 'number') &&
      new RegExp(
        `\\b${String(a)
          .toLowerCase()
          .replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`,
      ).test(lower),
  );
  // One mention is an answer; several are a list the customer is choosing from, not a value.
  return hit.length === 1 ? String(hit[0]) : undefined;
}

export function extractContext(input: ExtractContextInput): ExtractContextOutput {
  const text = input.message;
  const values: ExtractedValue[] = [];
  for (const variable of input.variables) {
    const kind = kindOf(variable);
    if (variable.allowed_values?.length) {
      const value = allowedValueIn(text, variable.allowed_values);
      if (value !== undefined) values.push({ name: variable.name, value, confidence: 0.7 });
      continue;
    }
    if (kind) {
      const value = FINDERS[kind](text);
      if (value !== undefined) values.push({ name: variable.name, value, confidence: CONFIDENCE[kind] });
    } else if (variable.data_type === 'Number') {
      const number = /(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])/.exec(text)?.[0];
      if (number !== undefined) values.push({ name: variable.name, value: number, confidence: 0.5 });
    }
  }
  const facts: ExtractedFact[] = [];
  if (input.facts) {
    for (const kind of ['name', 'email', 'phone', 'address', 'order_number'] as const) {
      const object = FINDERS[kind](text);
      if (object !== undefined) facts.push({ subject: 'customer', predicate: kind, object, confidence: CONFIDENCE[kind] });
    }
  }
  return { values, facts };
}
