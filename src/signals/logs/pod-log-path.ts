/**
 * A Kubernetes pod's identity from the log file the agent tailed. On Kubernetes the logs agent
 * reads each container's files under `/var/log/pods/<namespace>_<pod>_<pod uid>/<container>/`
 * (`<pod uid>/<container>/` before Kubernetes 1.14; datadog-agent
 * pkg/logs/launchers/container/tailerfactory/file.go, findK8sLogPath) and tags every line with the
 * file's directory, `dirname:` (pkg/logs/tailers/file/tailer.go, buildTailerTags). Its tagger
 * gives no pod uid (comp/core/tagger/tags/tags.go), and HyperDX opens a log's Infrastructure tab
 * only on `k8s.pod.uid`, so the path's parts go to the resource where the tags did not say them;
 * `dirname` itself stays a record attribute. Namespaces and pod names cannot hold `_` (they are
 * DNS names), so the split is exact; a static pod's uid is its 32-hex config hash.
 */
import type { Promoted } from '../shared/resource-promotion';

const DIRNAME = 'dirname';
const POD_LOG_DIR = /^\/var\/log\/pods\/(?:([a-z0-9][a-z0-9.-]*)_([a-z0-9][a-z0-9.-]*)_)?([0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12})\/([a-z0-9][a-z0-9-]*)$/;

function setIfAbsent(promoted: Promoted, key: string, value: string | undefined): void {
  if (value !== undefined && !promoted.resource.has(key)) promoted.resource.set(key, { string: value });
}

/** Adds the namespace, pod name, pod uid and container name a pod log directory says to the resource. */
export function podFromLogPath(promoted: Promoted): void {
  const dirname = promoted.attributes.get(DIRNAME);
  if (dirname === undefined || !('string' in dirname)) return;
  const m = POD_LOG_DIR.exec(dirname.string);
  if (!m) return;
  setIfAbsent(promoted, 'k8s.namespace.name', m[1]);
  setIfAbsent(promoted, 'k8s.pod.name', m[2]);
  setIfAbsent(promoted, 'k8s.pod.uid', m[3]);
  setIfAbsent(promoted, 'k8s.container.name', m[4]);
}
