/** The sidecar's settings: the option table, loading it, and the help text made from it. */
export { helpText } from './help';
export { acceptedKeys, loadConfig, optionOf, optionsFor, parseArgs, type ParsedArgs, resolveSetting } from './load';
export * from './options';
export { helpRows, loadTable, parseArgsFor, type Option, type OptionTable } from './table';
