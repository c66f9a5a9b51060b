# One image for `hyphae serve`, `hyphae worker` and `hyphae operator`.
# Stage 1 compiles TypeScript; stage 2 carries production dependencies only (the default
# embedder's all-MiniLM-L6-v2 weights are the repository's packages/model-all-minilm-l6-v2, a
# file: dependency, so the image embeds offline) and runs as a non-root user with a read-only
# root filesystem in mind.
FROM node:24.22.3-bookworm-slim AS build
WORKDIR /app
# .npmrc: no dependency install scripts (onnxruntime-node's would fetch CUDA libraries).
COPY .npmrc ./
COPY package.json package-lock.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.mjs scripts/build-console.mjs ./scripts/
COPY src ./src
COPY operator ./operator
COPY console ./console
# dist/ is self-contained (compiled modules, the SQL migrations they read, the web console's bundle).
RUN npm run build

FROM node:24.22.3-bookworm-slim AS runtime
# The MCP registry checks that the image named in server.json carries this server's name.
LABEL io.modelcontextprotocol.server.name="io.github.hyphae-dev/hyphae"
ENV NODE_ENV=production \
    HYPHAE_HOST=0.0.0.0 \
    HYPHAE_DATA_DIR=/data
WORKDIR /app
# .npmrc: no dependency install scripts (onnxruntime-node's would fetch CUDA libraries).
COPY .npmrc ./
COPY package.json package-lock.json ./
COPY packages ./packages
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY bin ./bin
# Pods run `hyphae serve|worker|migrate|operator`: the executable must be on PATH.
RUN ln -s /app/bin/hyphae.js /usr/local/bin/hyphae \
 && mkdir -p /data && chown 65532:65532 /data
USER 65532:65532
EXPOSE 8787 8788 50051
HEALTHCHECK NONE
ENTRYPOINT ["node", "/app/bin/hyphae.js"]
CMD ["serve"]
