/** The instrumentation scope stamped on everything we translate, so it can be told apart in ClickHouse. */
import type { InstrumentationScope } from '../../core/otlp/model';

export const SCOPE: InstrumentationScope = { name: 'dd-otlp-bridge', version: '0.1.0' };
