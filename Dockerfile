# dd-otlp-bridge sidecar image. Multi-stage: compile TypeScript with the dev dependencies, ship
# only dist/ and production dependencies on a maintained Node LTS (22; Node 20 is end-of-life).
# Node 22.15+ has native zstd, which the sidecar detects and prefers over fzstd.
# The collector is not in this image: it runs next to the sidecar (see README "Deployment").

ARG NODE_IMAGE=node:22.23-bookworm-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
# npm install, not npm ci: see src/bootstrap.js (the lock file lacks other platforms' optional packages)
RUN npm install --no-audit --no-fund --ignore-scripts --no-save
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev --ignore-scripts

FROM ${NODE_IMAGE}
ENV NODE_ENV=production \
    ENABLE_VENDOR_RECEIVER=false \
    DD_BRIDGE_LISTEN=0.0.0.0:8126 \
    DD_BRIDGE_ADMIN_LISTEN=0.0.0.0:9126
WORKDIR /app
COPY --from=build --chown=1000:1000 /app/package.json ./
COPY --from=build --chown=1000:1000 /app/node_modules ./node_modules
COPY --from=build --chown=1000:1000 /app/dist ./dist
COPY --chown=1000:1000 proto ./proto
# the image's "node" user
USER 1000:1000
EXPOSE 8126 9126
# /health answers 200 also when intake is disabled, so a disabled sidecar is not restart-looped
HEALTHCHECK --interval=15s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.DD_BRIDGE_ADMIN_LISTEN||'0.0.0.0:9126').split(':').pop()+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "dist/cli/main.js"]
CMD ["serve"]
