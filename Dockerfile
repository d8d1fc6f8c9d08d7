# syntax=docker/dockerfile:1
# The production image: the same steps as docs/production.md and test/e2e/slim-install.test.ts.
#   docker build -t sintonia .
#   docker run -p 8080-8082:8080-8082 -e DATABASE_URL=… -e SINTONIA_MASTER_KEY=… sintonia

#
# The base is Node.js 26, the Active LTS line (.nvmrc), on Debian 13 (trixie), the release its official
# images default to. The tags float: pin each FROM by digest where images are built, with the digest of
# `docker buildx imagetools inspect node:26-trixie` (and of node:26-trixie-slim), e.g.
# `FROM node:26-trixie@sha256:<digest>`. Where this was written there is no Docker Hub access, so no
# digest could be read and none is invented here.

# 1. Build: compile src/ to dist/ (TypeScript, a dev dependency), copy the chat page's Web Chat bundle into
#    it, and pack the package (package.json `files`: bin/ and dist/; the `prepack` script adds
#    npm-shrinkwrap.json, the lockfile). `npm pack` runs the `prepare` script, which builds dist/. Nothing
#    native is needed to compile or pack, so the dev install skips install scripts.
FROM node:26-trixie AS build
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /pack

# 2. Install: the package unpacked in a folder of its own, then its runtime dependencies at exactly the
#    lockfile's versions (the npm-shrinkwrap.json the tarball carries). better-sqlite3 downloads its
#    prebuilt binary or compiles (python3, make and g++ are in this image).
FROM node:26-trixie AS install
WORKDIR /app
COPY --from=build /pack/ /pack/
RUN tar -xzf /pack/sintonia-*.tgz --strip-components=1 && npm ci --omit=dev

# 3. Run: the installed folder, owned by root and read-only to the non-root user that serves (the same
#    Debian release as the install stage, so the compiled driver matches its C library).
FROM node:26-trixie-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    SINTONIA_DEMO=0 \
    SINTONIA_DATA_DIR=/data
WORKDIR /app
COPY --from=install /app ./
RUN mkdir /data && chown node:node /data
USER node
VOLUME /data
EXPOSE 8080 8081 8082
# Liveness (/healthz never asks the database): a database outage must not make the container unhealthy.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.CLIENT_API_PORT||8080)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets the stop signal itself (SIGTERM drains, then exits 0).
ENTRYPOINT ["node", "bin/sintonia.mjs"]
CMD ["serve"]
