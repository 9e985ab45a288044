/** The executor's `ToolServices` (the three protocol adapters under the outbound policy). */
export const TOOL_SERVICES = Symbol.for('tenet.tools.ToolServices');
/** The `ToolWorkQueue` of this process. */
export const TOOL_WORK_QUEUE = Symbol.for('tenet.tools.ToolWorkQueue');
/** Options of the tool modules (`ToolModuleOptions`). */
export const TOOL_MODULE_OPTIONS = Symbol.for('tenet.tools.options');
