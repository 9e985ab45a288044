export { loadPlatformConfig, PlatformConfigError, type PlatformConfig } from './platform-config.js';
export { openPlatform, tenetStream, type PlatformAdapters } from './platform-adapters.js';
export { PlatformModule } from './platform.module.js';
export { EVENT_LOG_RELAY, EVENT_STORE, MESSAGE_BUS, PLATFORM_CONFIG, PLATFORM_DESCRIPTION, SCHEDULER } from './tokens.js';
