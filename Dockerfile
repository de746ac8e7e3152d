# syntax=docker/dockerfile:1
# Build: a static binary with everything (templates, assets) embedded.
FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/kanri ./cmd/kanri \
 && mkdir -p /out/data

# Run: no shell, no package manager, a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/kanri /kanri
# The data directory belongs to the nonroot user (uid 65532), so the
# embedded store and the session key can be written to the volume.
COPY --from=build --chown=65532:65532 /out/data /data
ENV KANRI_ADDR=:8080 \
    KANRI_DATA_DIR=/data
VOLUME ["/data"]
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/kanri"]
