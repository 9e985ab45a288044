export { SessionGatewayModule } from './gateway.module.js';
