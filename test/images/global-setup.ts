/**
 * `npm run test:images`' global setup: the base images, both images of the Dockerfile and the
 * ClickHouse stand-in, built (or found) once; their sizes and build times printed and saved
 * (~/.cache/dd-otlp-bridge/images/build-report.json), so no test times out on a first build.
 */
import { buildImages, formatReport, saveReport } from './build';
import { hasPodman } from './podman';

export default async function globalSetup(): Promise<void> {
  if (!hasPodman()) throw new Error('the image tests need podman, buildah, runc and debootstrap (apt-get install -y podman buildah runc debootstrap netavark aardvark-dns iptables)');
  const started = Date.now();
  const report = await buildImages();
  process.stderr.write(`\n[images] built in ${Math.round((Date.now() - started) / 1000)} s\n${formatReport(report)}\n[images] report: ${saveReport(report)}\n`);
}
