import { DEFAULT_MANIFEST } from '../../tools/src/collector/build';

/** The manifest the tests build; DD_BRIDGE_TEST_MANIFEST points at a slimmer one when set. */
export const TEST_MANIFEST = process.env.DD_BRIDGE_TEST_MANIFEST ?? DEFAULT_MANIFEST;
