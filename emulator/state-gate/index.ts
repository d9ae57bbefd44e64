export { clockAndIdFaults, gateState, type GateOptions, MAX_CLOCK, MAX_FAULTS, type GateInput } from './gate.js';
export { migrateTables } from './migrate.js';
export { ROW_RULES, type TableRule } from './rows.js';
export { checkStoreFile, GATE_MARK, GATE_VERSION } from './store-file.js';
