# The partners' sandbox as an image, for partners without Node: the reference server (seeded demo
# data, demo keys, real errors) with the API reference page on port 8080, and the Prism mock of the
# spec on port 4010.
#
#   docker build -t canvassing-sandbox .
#   docker run --rm -p 8080:8080 -p 4010:4010 canvassing-sandbox
#   docker run --rm -p 8080:8080 -p 4010:4010 canvassing-sandbox --clock --variant 3
#
# Arguments after the image name are `npm start`'s flags (docs/partners.md). The base is a build
# argument: any image with Node 22 and npm (`--build-arg BASE=...`: a mirror's copy, or the one
# `npm run sandbox:base` imports into podman where no registry is reachable). Building fetches packages
# from the npm registry; behind a proxy with its own certificate authority, make its certificate
# readable to the build and name it in NODE_EXTRA_CA_CERTS (a build argument, not kept in the image).
ARG BASE=node:22-slim

# The reference page is rendered by Redocly, a development tool the served image does not carry.
FROM ${BASE} AS page
ARG NODE_EXTRA_CA_CERTS
WORKDIR /sandbox
COPY package.json package-lock.json ./
COPY conformance/package.json conformance/
COPY sandbox/package.json sandbox/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund \
 && npm install --prefix /redocly --no-save --no-audit --no-fund --ignore-scripts \
      "@redocly/cli@$(node -p "require('./package.json').devDependencies['@redocly/cli']")"
COPY . .
RUN NODE_PATH=/redocly/node_modules npm run --silent docs:build

FROM ${BASE}
ARG NODE_EXTRA_CA_CERTS
WORKDIR /sandbox
ENV NODE_ENV=production
COPY package.json package-lock.json ./
COPY conformance/package.json conformance/
COPY sandbox/package.json sandbox/
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force
COPY command-line command-line
COPY docs docs
COPY fixtures fixtures
COPY mock mock
COPY reference-server reference-server
COPY sandbox sandbox
COPY spec spec
COPY --from=page /sandbox/spec/generated spec/generated
# The bundle the launcher runs, made once here rather than at every start.
RUN node command-line/launch.js --build-only sandbox/main.ts
USER node
EXPOSE 8080 4010
# Inside a container both servers listen on every address, so the published ports reach them; the
# banner names them on the host (http://localhost:8080 and :4010), where partners reach them.
ENTRYPOINT ["node", "command-line/launch.js", "sandbox/main.ts", "--", "--host", "0.0.0.0"]
