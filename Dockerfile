# syntax=docker/dockerfile:1
# kycflow image: one static binary; the service runs it as `api`, `worker`,
# `migrate` or an admin command (see docker-compose.yml).

FROM golang:1.26-bookworm AS build
WORKDIR /src
# Modules first, so a source change does not re-download them.
COPY go.mod go.sum ./
RUN --mount=type=cache,target=/go/pkg/mod go mod download
COPY . .
# CGO off: a static binary that runs on any base image.
RUN --mount=type=cache,target=/go/pkg/mod --mount=type=cache,target=/root/.cache/go-build \
    CGO_ENABLED=0 go build -trimpath -o /out/kycflow ./cmd/kycflow

# bookworm-slim rather than distroless: it has bash, which the compose
# healthcheck uses to probe /healthz (the binary has no probe subcommand).
FROM debian:bookworm-slim
# CA roots for the providers' HTTPS APIs (KvK, VIES), taken from the build image.
COPY --from=build /etc/ssl/certs/ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
# The document reader (workers): Tesseract and the OCR-B typeface, from
# Debian's packages.
RUN apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends tesseract-ocr fonts-ocr-b \
    && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/kycflow /kycflow
# Never run as root; 65532 is the conventional "nonroot" id.
USER 65532:65532
EXPOSE 8080
ENTRYPOINT ["/kycflow"]
CMD ["api"]
