export { SessionGatewayModule } from './gateway.module.js';
export { configureGatewayHttp } from './http/configure-http.js';
export { GuidelinesRepository } from './guidelines/guidelines.repository.js';
