export { SessionGatewayModule } from './gateway.module.js';
export { configureGatewayHttp } from './http/configure-http.js';
export { GuidelinesRepository } from './guidelines/guidelines.repository.js';
export { RelationshipsRepository } from './relationships/relationships.repository.js';
export { CannedResponsesRepository } from './canned-responses/canned-responses.repository.js';
export type { Relationship, RelationshipRecord, Endpoint as RelationshipEndpoint, RelationshipKindName } from './relationships/relationship.dto.js';
export type { AgentGuideline } from './guidelines/guideline.dto.js';
export { AgentBudgets, BUDGET_RESET_QUEUE } from './budgets/agent-budgets.js';
export { accessFor, authorize, ROLES, type Role } from './auth/access-policy.js';
