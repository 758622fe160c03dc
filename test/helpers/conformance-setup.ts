/**
 * The conformance project's global setup: builds both collectors the conformance test compares,
 * ours and the reference one with the upstream receiver (bench/sut.ts), before the test runs, for
 * the same reason as global-setup.ts. Only this test needs the reference collector.
 */
import { binaries } from '../../bench/sut';

export default async function conformanceSetup(): Promise<void> {
  await binaries();
}
