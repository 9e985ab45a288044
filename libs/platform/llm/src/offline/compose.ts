import type { ComposeReplyInput, ComposeReplyOutput } from '../tasks/compose-reply.js';

// Actions are written to the agent ("introduce yourself", "ask them"); the reply speaks as the agent to the customer.
const toCustomer = (text: string): string =>
  text
    .replace(/\byourself\b/gi, 'myself')
    .replace(/\byour\b/gi, 'my')
    .replace(/\byou\b/gi, 'I')
    .replace(/\b(the customer|the user)'s\b/gi, 'your')
    .replace(/\b(the customer|the user)\b/gi, 'you')
    .replace(/\btheir\b/gi, 'your')
    .replace(/\bthem\b/gi, 'you')
    .replace(/\bthemselves\b/gi, 'yourself');

const capitalised = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);
const lowered = (text: string): string => text.charAt(0).toLowerCase() + text.slice(1);

/** One action as one sentence of the reply: a greeting, a quoted line, a statement, a question or a promise. */
function sentenceFor(action: string, agentName: string): string {
  const text = action.trim().replace(/[.!]+$/, '');
  const quoted = /^(?:say|reply|respond|answer)(?: with| that)?[:\s]+['"‘“](.+)['"’”]$/i.exec(text);
  if (quoted?.[1]) return /[.!?]$/.test(quoted[1]) ? quoted[1] : `${quoted[1]}.`;
  if (/^(greet|welcome)\b/i.test(text)) return `Hello, I'm ${agentName}!`;
  const statement = /^(?:tell|inform|remind) (?:them|the customer|the user)(?: that)?\s+(.+)$/i.exec(text);
  if (statement?.[1]) return `${capitalised(toCustomer(statement[1]))}.`;
  const askFor = /^ask (?:them |the customer |the user )?for\s+(.+)$/i.exec(text);
  if (askFor?.[1]) return `Could you share ${toCustomer(askFor[1])}?`;
  const askTo = /^ask (?:them|the customer|the user) to\s+(.+)$/i.exec(text);
  if (askTo?.[1]) return `Could you ${toCustomer(askTo[1])}?`;
  return `I will ${lowered(toCustomer(text))}.`;
}

/** A readable reply from the matched actions, most relevant first; a polite question when nothing matched. */
export function composeReply(input: ComposeReplyInput): ComposeReplyOutput {
  if (input.matched.length === 0) {
    return { message: `Thanks for your message. I'm ${input.agentName}; could you tell me a little more about what you need?`, cited_guideline_ids: [] };
  }
  const sentences = [...new Set(input.matched.map(({ action }) => sentenceFor(action, input.agentName)))];
  return { message: sentences.join(' '), cited_guideline_ids: [...new Set(input.matched.map((m) => m.guideline_id))] };
}
