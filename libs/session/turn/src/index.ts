export { BudgetExhaustion } from './budget-exhaustion.js';
export { AgentTurnExtras } from './turn-extras.js';
export { TURN_EXTRAS, TurnService } from './turn.service.js';
export { TURN_PROVIDERS } from './turns.providers.js';
