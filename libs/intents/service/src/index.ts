export { IntentsModule } from './intents.module.js';
export { IntentCreationDto, IntentUpdateDto } from './intent.dto.js';
export { IntentsRepository } from './intents.repository.js';
export { IntentTurn, intentSettingsOf, pendingClarification, TurnIntents, type TailMessage } from './turn-intents.js';
export { IntentReports, intentsSection, type AgentIntentReport, type IntentCounts } from './intent-report.js';
