export { ConfigError, loadConfig, loadConfigOrExit, readSettings, schemaOf, TenetConfig, variablesOf, type Env } from './config.js';
export { renderConfigurationDoc } from './config-doc.js';
export { PROCESSES, sizeInBytes, type ProcessName, type Variable } from './variable.js';
export { VARIABLES, type PriceOverrides, type Settings, type VariableName } from './variables.js';
