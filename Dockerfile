# dd-otlp-bridge images, multi-stage:
#   collector  the stock collector, built from collector/builder.yaml the way
#              tools/src/collector/build.ts builds it (`docker build --target collector .`);
#              collector/config.yaml and the overlays are in /etc/otelcol/.
#   sidecar    the default (last) target: compile the sidecar (src/) with the dev dependencies,
#              ship only dist/ and its production dependencies (not the workbench in tools/) on Node 24, the active LTS (22 is also
#              supported; 20 is end-of-life). zstd: libzstd through the optional zstd-napi
#              addon, built here; without it, Node's native zstd (22.15+), which the sidecar
#              detects; then fzstd.
# docker-compose.yaml and deploy/kubernetes/ run the two side by side.

ARG NODE_IMAGE=node:24.21-bookworm-slim
ARG GO_IMAGE=golang:1.26-alpine
ARG COLLECTOR_BASE_IMAGE=alpine:3.22

FROM ${GO_IMAGE} AS collector-build
ENV CGO_ENABLED=0 GOFLAGS=-mod=mod
WORKDIR /src
COPY collector/builder.yaml ./otelcol-builder.yaml
# The manifest's dist.version picks the builder and the otelcol module. The builder only generates
# the sources: its own `go mod tidy` wants test-only modules the proxy may lack (see the manifest).
RUN version="$(sed -n 's/^[[:space:]]*version:[[:space:]]*//p' otelcol-builder.yaml)" \
 && go install "go.opentelemetry.io/collector/cmd/builder@v${version}" \
 && builder --config otelcol-builder.yaml --skip-get-modules --skip-compilation \
 && sed -n 's/^[[:space:]]*- gomod:[[:space:]]*\([^[:space:]]*\)[[:space:]]*\([^[:space:]]*\).*/\1@\2/p' otelcol-builder.yaml > build/modules.txt \
 && echo "go.opentelemetry.io/collector/otelcol@v${version}" >> build/modules.txt
WORKDIR /src/build
RUN go mod init otelcol-dd-bridge \
 && xargs go get < modules.txt \
 && go build -trimpath -ldflags='-s -w' -o /out/otelcol-dd-bridge .

FROM ${COLLECTOR_BASE_IMAGE} AS collector
COPY --from=collector-build /out/otelcol-dd-bridge /usr/local/bin/otelcol-dd-bridge
COPY collector/config.yaml /etc/otelcol/collector-config.yaml
COPY collector/overlays/ /etc/otelcol/overlays/
# The exporter's queue on disk (collector/config.yaml): mount a volume here so that what the
# collector accepted outlives the container. Owned by the collector's unprivileged user.
RUN mkdir -p /var/lib/otelcol/queue && chown 10001:10001 /var/lib/otelcol/queue
VOLUME ["/var/lib/otelcol/queue"]
# collector/config.yaml binds loopback by default; a container's ports are reached from outside it,
# so the image binds every interface, and its default command requires OTLP_AUTH_TOKEN (auth.yaml:
# the collector refuses to start without it)
ENV OTLP_GRPC_ENDPOINT=0.0.0.0:4317 \
    OTLP_HTTP_ENDPOINT=0.0.0.0:4318 \
    COLLECTOR_HEALTH_ENDPOINT=0.0.0.0:13133 \
    COLLECTOR_METRICS_HOST=0.0.0.0 \
    COLLECTOR_QUEUE_DIR=/var/lib/otelcol/queue
USER 10001:10001
EXPOSE 4317 4318 13133 8888
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["wget", "-q", "-O", "/dev/null", "http://127.0.0.1:13133/"]
# merge-append: the overlays and a site's files only add to collector/config.yaml (see its header)
ENTRYPOINT ["/usr/local/bin/otelcol-dd-bridge", "--feature-gates=confmap.enableMergeAppendOption"]
CMD ["--config", "/etc/otelcol/collector-config.yaml", "--config", "/etc/otelcol/overlays/auth.yaml"]

FROM ${NODE_IMAGE} AS build
# compilers for the zstd-napi addon when no prebuilt binary can be fetched; they stay in this stage
# hadolint ignore=DL3008
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: see tools/bootstrap.js (the lock file lacks other platforms' optional packages).
# Scripts stay off for the dev tools; only the optional zstd addon is built, and if it cannot be,
# the sidecar decodes zstd with node:zlib instead.
RUN npm install --no-audit --no-fund --ignore-scripts --no-save --workspaces=false \
 && (npm rebuild zstd-napi || echo "zstd-napi did not build: zstd goes through node:zlib")
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts --workspaces=false

FROM ${NODE_IMAGE} AS sidecar
# The admin port (/health, /metrics, no auth) defaults to loopback; a container publishes it, so
# the image binds it on every interface explicitly.
ENV NODE_ENV=production \
    ENABLE_VENDOR_RECEIVER=false \
    DD_BRIDGE_LISTEN=0.0.0.0:8126 \
    DD_BRIDGE_ADMIN_LISTEN=0.0.0.0:9126
WORKDIR /app
COPY --from=build --chown=1000:1000 /app/package.json ./
COPY --from=build --chown=1000:1000 /app/node_modules ./node_modules
COPY --from=build --chown=1000:1000 /app/dist ./dist
# the bundled Datadog integration log pipelines (--log-pipelines /app/pipelines/integrations-core)
COPY --chown=1000:1000 pipelines ./pipelines
# the image's "node" user
USER 1000:1000
EXPOSE 8126 9126
# /health answers 200 also when intake is disabled, so a disabled sidecar is not restart-looped
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.DD_BRIDGE_ADMIN_LISTEN||'127.0.0.1:9126').split(':').pop()+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
