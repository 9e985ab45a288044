import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsNumber,
  IsString,
  Length,
  Max,
  Min,
  ValidateNested,
  JSONSchema,
} from '@tenet/platform-runtime/validation';
import { BUDGET_PERIODS } from '@tenet/metering-domain';
import { IsOmittable } from '../http/validation.js';

/** One token budget of the agent (docs/data-model.md#budgets): exactly one of `tokens` and `cost_usd` per limit. */
export class BudgetLimitDto {
  @JSONSchema({
    description: "session: per session of the agent; day / month: the agent's UTC day / month (reset at 00:00 UTC, on the 1st).",
  })
  @IsIn(BUDGET_PERIODS, { message: `period must be one of ${BUDGET_PERIODS.join(', ')}` })
  period!: (typeof BUDGET_PERIODS)[number];
  @JSONSchema({ description: 'Input + output tokens of every LLM call (matching, composing, embeddings).' })
  @IsOmittable()
  @IsInt({ message: 'tokens must be a positive integer' })
  @Min(1, { message: 'tokens must be a positive integer' })
  @Max(1_000_000_000_000)
  tokens?: number;
  @JSONSchema({ description: 'Estimated cost in USD, from the price table (TENET_PRICES).' })
  @IsOmittable()
  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: 'cost_usd must be a positive number' })
  @Min(0.000_001, { message: 'cost_usd must be a positive number' })
  @Max(1_000_000)
  cost_usd?: number;
}

export const BUDGET_ACTIONS = ['message', 'handoff'] as const;

/** The agent's token budgets, checked before every LLM call; what the agent does when one is spent. */
export class AgentBudgetDto {
  @IsArray()
  @ArrayMaxSize(6, { message: 'budget.limits holds at most 6 limits' })
  @ValidateNested({ each: true })
  @Type(() => BudgetLimitDto)
  limits!: BudgetLimitDto[];
  @JSONSchema({ description: 'What the customer is told when a budget is spent (no LLM call is made).' })
  @IsOmittable()
  @IsString()
  @Length(1, 1_000, { message: 'exhausted_message must be 1-1000 characters' })
  exhausted_message?: string;
  @JSONSchema({ description: 'message (default): answer with exhausted_message; handoff: also hand the session to a human (mode manual).' })
  @IsOmittable()
  @IsIn(BUDGET_ACTIONS, { message: `on_exhausted must be one of ${BUDGET_ACTIONS.join(', ')}` })
  on_exhausted?: (typeof BUDGET_ACTIONS)[number];
}

/** A stored budget (of an agent or a workspace), defaults filled in; null when none is set. */
export type BudgetView = {
  limits: { period: (typeof BUDGET_PERIODS)[number]; tokens?: number; cost_usd?: number }[];
  exhausted_message: string;
  on_exhausted: (typeof BUDGET_ACTIONS)[number];
} | null;
