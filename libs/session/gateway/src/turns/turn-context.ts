import { Injectable } from '@nestjs/common';
import { CapabilitiesRepository } from '../capabilities/capabilities.repository.js';
import { ContextVariablesRepository } from '../context-variables/context-variables.repository.js';
import { scopedToAgent } from '../tags/tag-references.js';
import { TermsRepository } from '../terms/terms.repository.js';

/** Parlant's key for a context variable's value that applies to every customer. */
const DEFAULT_KEY = 'DEFAULT';

/**
 * What a turn knows besides the guidelines: the customer's context-variable values (seed 000 §8 step 3
 * checks `required_context` against them) and the agent's glossary. Which guidelines earlier replies in the
 * session applied (Parlant's applied-guideline tracking, recorded on each `ready` status) comes with the
 * history from `readTurnTail` (turn-history.ts).
 */
@Injectable()
export class TurnContext {
  constructor(
    private readonly variables: ContextVariablesRepository,
    private readonly terms: TermsRepository,
    private readonly capabilityCatalog: CapabilitiesRepository,
  ) {}

  /** Variable name → value for this customer: their own value, else the DEFAULT one, else the variable's default. */
  async values(agentId: string, customerId: string): Promise<Record<string, unknown>> {
    const values: Record<string, unknown> = {};
    for (const variable of await this.variables.list()) {
      if (!scopedToAgent(variable.tags, agentId)) continue;
      const value = (await this.variables.getValue(variable.id, customerId)) ?? (await this.variables.getValue(variable.id, DEFAULT_KEY));
      if (value !== undefined) values[variable.name] = value.data;
      else if (variable.default_value !== undefined) values[variable.name] = variable.default_value;
    }
    return values;
  }

  /** The agent's capabilities; the matcher picks the few relevant to the conversation. */
  async capabilities(agentId: string): Promise<{ id: string; title: string; description: string; signals: string[] }[]> {
    return (await this.capabilityCatalog.forAgent(agentId)).map(({ id, title, description, signals }) => ({ id, title, description, signals }));
  }

  async glossary(agentId: string): Promise<{ name: string; description: string; synonyms: string[] }[]> {
    return (await this.terms.list()).filter((term) => scopedToAgent(term.tags, agentId)).map((term) => ({ name: term.name, description: term.description, synonyms: term.synonyms }));
  }
}
